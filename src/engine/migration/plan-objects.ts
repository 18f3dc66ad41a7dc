// The part of the planner for objects beyond tables: schemas, extensions, functions and procedures,
// views and materialized views, triggers. It runs after the tables are planned, because what the
// table plan breaks decides which views must step aside: a view that reads a column whose type
// changes or that goes, a table that goes, a function that is dropped and created again, or another
// view that is recreated, is dropped before the change and created again after it (PostgreSQL
// refuses to alter or drop what a view reads). Drops run dependents first, creations dependencies
// first (dependency-order.ts).
//
// A section (views, routines…) is planned only when both models have it: a model taken before the
// engine knew these objects (an old snapshot) must not make the plan drop them all.
import { traitsOf } from '../schema/engine-traits.ts';
import type { SchemaModel } from '../schema/model.ts';
import {
  type CollationModel,
  type DependencyRef,
  dependencyKey,
  objectKey,
  type RoutineModel,
  type TriggerModel,
  triggerKey,
  type ViewModel,
} from '../schema/objects.ts';
import { dependencyOrder } from './dependency-order.ts';
import type { MigrationOperation } from './operations.ts';
import { type Descendants, descendantsOf, heldRowTypes, relationKeys, rowTypeKey } from './plan-graph.ts';
import { planPolicies } from './plan-policies.ts';
import { planRoutineUses } from './plan-routine-uses.ts';
import type { Phases } from './plan-tables.ts';
import type { PlanNote } from './plan-types.ts';
import { planUserTypes } from './plan-user-types.ts';
import { sameArgumentsButDefaults } from './routine-arguments.ts';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const viewRef = (v: ViewModel) => `rel:${objectKey(v)}`;
const routineRef = (r: RoutineModel) => `routine:${objectKey(r)}`;
const columnRef = (schema: string | null, table: string, column: string) =>
  `col:${objectKey({ schema, name: table })}.${column}`;

/** The keys of what the table plan drops or rewrites: relations and columns (see dependencyKey). */
export function brokenByTables(p: Phases, descendants: Descendants = new Map()): Set<string> {
  const broken = new Set<string>();
  // A column changed on a parent changes with it in every partition and child, which views read too.
  const changedColumn = (schema: string | null, table: string, column: string) => {
    const key = objectKey({ schema, name: table });
    for (const child of descendants.get(key) ?? []) broken.add(`col:${child}.${column}`);
    return `col:${key}.${column}`;
  };
  for (const op of [...p.dropTables, ...p.createTables]) {
    // A routine that takes or returns the table's row reads its type.
    const table = op.kind === 'drop_table' ? op.table : op.kind === 'rebuild_table' ? op.before : null;
    if (table !== null) for (const key of relationKeys(table)) broken.add(key);
  }
  for (const op of [...p.columns, ...p.dropColumns]) {
    if (op.kind === 'drop_column') broken.add(changedColumn(op.table.schema, op.table.name, op.column.name));
    // A SQL-standard body holding the table's row type must step aside (plan-graph.ts rowTypeKey).
    if (
      (op.kind === 'alter_column' && (op.change === 'type' || op.change === 'replace_generated')) ||
      (op.kind === 'add_column' &&
        (op.column.default !== null || op.column.identity !== null || op.column.generated !== null))
    )
      broken.add(rowTypeKey(op.table));
    if (
      op.kind === 'alter_column' &&
      (op.change === 'type' || op.change === 'replace_generated' || op.change === 'drop_expression')
    )
      broken.add(changedColumn(op.table.schema, op.table.name, op.before.name));
  }
  for (const op of p.types)
    if (op.kind === 'recreate_enum') {
      for (const use of op.uses) {
        broken.add(changedColumn(use.table.schema, use.table.name, use.column.name));
        broken.add(rowTypeKey(use.table));
      }
      // Routines taking or returning the type (or its array) hold the old one after the swap.
      broken.add(`type:${op.enum.schema}.${op.enum.name}`);
      broken.add(`type:${op.enum.schema}._${op.enum.name}`);
    }
  return broken;
}

function hits(depends: DependencyRef[], broken: Set<string>): boolean {
  return depends.some(
    (ref) =>
      broken.has(dependencyKey(ref)) ||
      (ref.column !== null && broken.has(columnRef(ref.schema, ref.name, ref.column))),
  );
}

export function planObjects(p: Phases, notes: PlanNote[], src: SchemaModel, tgt: SchemaModel): void {
  const engine = traitsOf(tgt.dialect);
  const broken = brokenByTables(p, descendantsOf(tgt.tables));
  planSchemas(p, src, tgt);
  planExtensionsManaged(p, src, tgt);
  if (src.collations && tgt.collations) planCollations(p, src.collations, tgt.collations);
  if (src.types && tgt.types) planUserTypes(p, notes, src.types, tgt.types, engine, tgt.tables, broken);
  const stepAside = src.routines && tgt.routines ? planRoutines(p, src.routines, tgt.routines, broken) : [];
  if (engine.routineUses) planRoutineUses(p, src, tgt, broken);
  if (src.views && tgt.views) planViews(p, src.views, tgt.views, broken, engine.lenientViews);
  if (src.triggers && tgt.triggers) planTriggers(p, src.triggers, tgt.triggers, broken);
  // After the views and triggers that call them, before the types they use change.
  p.dropViews.push(...stepAside);
  if (engine.rowPolicies) planPolicies(p, src, tgt, broken);
}

/** Before the types and tables that use them; a changed one is dropped and created again. */
function planCollations(p: Phases, src: CollationModel[], tgt: CollationModel[]): void {
  const key = (c: CollationModel) => `${c.schema}.${c.name}`;
  const before = new Map(tgt.map((c) => [key(c), c]));
  const wanted = new Map(src.map((c) => [key(c), c]));
  const creates: MigrationOperation[] = [];
  for (const collation of src) {
    const existing = before.get(key(collation));
    if (existing && same(existing, collation)) continue;
    if (existing) creates.push({ kind: 'drop_collation', collation: existing });
    creates.push({ kind: 'create_collation', collation });
  }
  p.types.unshift(...creates);
  for (const collation of tgt)
    if (!wanted.has(key(collation))) p.dropTypes.push({ kind: 'drop_collation', collation });
}

function planSchemas(p: Phases, src: SchemaModel, tgt: SchemaModel): void {
  if (!src.schemas || !tgt.schemas) return;
  const before = new Map(tgt.schemas.map((s) => [s.name, s]));
  const after = new Set(src.schemas.map((s) => s.name));
  for (const schema of src.schemas) {
    const existing = before.get(schema.name);
    if (!existing) p.createSchemas.push({ kind: 'create_schema', schema });
    else if (existing.comment !== schema.comment)
      p.late.push({
        kind: 'comment_object',
        target: { type: 'schema', schema: null, name: schema.name, table: null },
        before: existing.comment,
        after: schema.comment,
      });
  }
  for (const schema of tgt.schemas)
    if (!after.has(schema.name)) p.dropSchemas.push({ kind: 'drop_schema', schema });
}

function planExtensionsManaged(p: Phases, src: SchemaModel, tgt: SchemaModel): void {
  if (!src.extensions || !tgt.extensions) return;
  const before = new Map(tgt.extensions.map((e) => [e.name, e]));
  const wanted = new Set(src.extensions.map((e) => e.name));
  const creates: MigrationOperation[] = [];
  for (const extension of src.extensions) {
    const existing = before.get(extension.name);
    if (!existing)
      creates.push({
        kind: 'create_extension',
        name: extension.name,
        schema: extension.schema,
        version: extension.version,
      });
    else if (existing.version !== extension.version)
      creates.push({
        kind: 'alter_extension',
        name: extension.name,
        before: existing.version,
        after: extension.version,
      });
  }
  // The extensions column types need (plan-types.ts) are these, with their version now.
  const created = new Set(creates.map((op) => (op.kind === 'create_extension' ? op.name : '')));
  p.types = p.types.filter((op) => !(op.kind === 'create_extension' && created.has(op.name)));
  p.types.unshift(...creates);
  for (const extension of tgt.extensions)
    if (!wanted.has(extension.name))
      p.dropExtensions.push({
        kind: 'drop_extension',
        name: extension.name,
        schema: extension.schema,
        version: extension.version,
      });
}

/**
 * Returns the drops of routines that step aside (a type they take or return is swapped): those run
 * with the views' drops, before the types change; they are created again with the others.
 */
function planRoutines(
  p: Phases,
  src: RoutineModel[],
  tgt: RoutineModel[],
  broken: Set<string>,
): MigrationOperation[] {
  const stepAside: MigrationOperation[] = [];
  const before = new Map(tgt.map((r) => [objectKey(r), r]));
  const after = new Set(src.map(objectKey));
  for (const routine of src) {
    const existing = before.get(objectKey(routine));
    if (!existing) {
      p.routines.push({ kind: 'create_routine', routine });
      continue;
    }
    if (hits(existing.depends_on, broken) || heldRowTypes(existing).some((key) => broken.has(key))) {
      broken.add(routineRef(existing));
      stepAside.push({ kind: 'drop_routine', routine: existing });
      p.routines.push({ kind: 'create_routine', routine });
      continue;
    }
    const replaceable =
      existing.kind === routine.kind &&
      sameArgumentsButDefaults(existing.arguments, routine.arguments) &&
      existing.result === routine.result;
    if (!replaceable) {
      // Another result or argument list: CREATE OR REPLACE refuses, so it goes and comes back,
      // and whatever calls it (views, triggers) with it.
      broken.add(routineRef(existing));
      p.routines.push({ kind: 'drop_routine', routine: existing }, { kind: 'create_routine', routine });
      continue;
    }
    if (existing.definition !== routine.definition)
      p.routines.push({ kind: 'replace_routine', before: existing, after: routine });
    if (existing.comment !== routine.comment)
      p.late.push({
        kind: 'comment_object',
        target: { type: routine.kind, schema: routine.schema, name: routine.name, table: null },
        before: existing.comment,
        after: routine.comment,
      });
  }
  for (const routine of tgt)
    if (!after.has(objectKey(routine))) {
      broken.add(routineRef(routine));
      p.dropRoutines.push({ kind: 'drop_routine', routine });
    }
  return stepAside;
}

const viewDeps = (view: ViewModel) => view.depends_on.map(dependencyKey);

/**
 * `lenient`: MySQL/MariaDB let a table or column a view reads be altered or dropped (the view is
 * left invalid until it is replaced) and replace any view in place: nothing else steps aside, and a
 * view that changes is replaced after the tables, so that its rollback (the former definition)
 * runs while what it read still exists, even a view that was invalid in the target.
 */
function planViews(
  p: Phases,
  src: ViewModel[],
  tgt: ViewModel[],
  broken: Set<string>,
  lenient: boolean,
): void {
  const wanted = new Map(src.map((v) => [objectKey(v), v]));
  const replace = new Map<string, ViewModel>();
  const recreate = new Set<string>();
  for (const view of tgt) {
    const next = wanted.get(objectKey(view));
    if (!next) recreate.add(objectKey(view));
    else if (!same({ ...view, comment: null, depends_on: [] }, { ...next, comment: null, depends_on: [] })) {
      const canReplace =
        lenient ||
        (!view.materialized &&
          !next.materialized &&
          same(view.columns, next.columns) &&
          same(view.options, next.options));
      if (canReplace) replace.set(objectKey(view), next);
      else recreate.add(objectKey(view));
    }
  }
  // A lenient engine's view whose current definition reads a table or column the table plan drops
  // or rewrites is dropped before the tables change and created after them instead: replaced after
  // them, its rollback (the former definition) would run before what it reads is back.
  if (lenient)
    for (const view of tgt)
      if (replace.has(objectKey(view)) && hits(view.depends_on, broken)) {
        replace.delete(objectKey(view));
        recreate.add(objectKey(view));
      }
  // A lenient engine's view replaced while its current definition reads a view that is recreated
  // is recreated too: its rollback (the former definition) must run once the former view is back.
  for (let grew = lenient; grew; ) {
    grew = false;
    const recreated = new Set([...recreate].map((key) => `rel:${key}`));
    for (const view of tgt)
      if (replace.has(objectKey(view)) && hits(view.depends_on, recreated)) {
        replace.delete(objectKey(view));
        recreate.add(objectKey(view));
        grew = true;
      }
  }
  // Whatever reads a view that goes is dropped with it: to a fixed point.
  for (let grew = !lenient; grew; ) {
    grew = false;
    for (const view of tgt) {
      const key = objectKey(view);
      if (recreate.has(key)) {
        if (!broken.has(viewRef(view))) {
          broken.add(viewRef(view));
          grew = true;
        }
        continue;
      }
      if (hits(view.depends_on, broken)) {
        recreate.add(key);
        replace.delete(key);
        grew = true;
      }
    }
  }
  const dropped = tgt.filter((v) => recreate.has(objectKey(v)));
  for (const view of dependencyOrder(dropped, viewRef, viewDeps).reverse())
    p.dropViews.push({ kind: 'drop_view', view });

  const existing = new Map(tgt.map((v) => [objectKey(v), v]));
  const creates: { view: ViewModel; op: MigrationOperation }[] = [];
  for (const view of src) {
    const key = objectKey(view);
    const old = existing.get(key);
    if (!old || recreate.has(key)) creates.push({ view, op: { kind: 'create_view', view } });
    else if (replace.has(key)) creates.push({ view, op: { kind: 'replace_view', before: old, after: view } });
    if (old && !recreate.has(key) && old.comment !== view.comment)
      p.late.push({
        kind: 'comment_object',
        target: {
          type: view.materialized ? 'materialized_view' : 'view',
          schema: view.schema,
          name: view.name,
          table: null,
        },
        before: old.comment,
        after: view.comment,
      });
  }
  const order = dependencyOrder(
    creates,
    (c) => viewRef(c.view),
    (c) => viewDeps(c.view),
  );
  p.createViews.push(...order.map((c) => c.op));
}

function planTriggers(p: Phases, src: TriggerModel[], tgt: TriggerModel[], broken: Set<string>): void {
  const wanted = new Map(src.map((t) => [triggerKey(t), t]));
  const existing = new Map(tgt.map((t) => [triggerKey(t), t]));
  const onRecreated = (t: TriggerModel) =>
    broken.has(`rel:${objectKey({ schema: t.schema, name: t.table })}`) || hits(t.depends_on, broken);
  for (const trigger of tgt) {
    const next = wanted.get(triggerKey(trigger));
    if (!next || next.definition !== trigger.definition || onRecreated(trigger))
      p.dropTriggers.push({ kind: 'drop_trigger', trigger });
  }
  const droppedKeys = new Set(
    p.dropTriggers.map((op) => (op.kind === 'drop_trigger' ? triggerKey(op.trigger) : '')),
  );
  for (const trigger of src) {
    const key = triggerKey(trigger);
    const old = existing.get(key);
    if (!old || droppedKeys.has(key)) {
      p.createTriggers.push({ kind: 'create_trigger', trigger });
      continue;
    }
    if (old.state !== trigger.state)
      p.late.push({ kind: 'set_trigger_state', trigger, before: old.state, after: trigger.state });
    if (old.comment !== trigger.comment)
      p.late.push({
        kind: 'comment_object',
        target: { type: 'trigger', schema: trigger.schema, name: trigger.name, table: trigger.table },
        before: old.comment,
        after: trigger.comment,
      });
  }
}

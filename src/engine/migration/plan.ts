// The migration planner: from a source model (the reference) and a target model of the same dialect,
// the ordered operations that make the target match the source. Pure: models in, operations out;
// the dialect renders them (DdlRenderer) and invert.ts derives their rollback.
//
// Order, each phase after what it depends on:
//  1. enum values added (PostgreSQL: ADD VALUE cannot be used in the transaction that adds it, so it
//     runs before the others, outside it)
//  2. schemas created (before anything is created in them)
//  3. triggers and views that go, change, or read something the plan breaks (plan-objects.ts),
//     dependents first
//  4. the backup schema, extensions, enums created or recreated, sequences created, altered, or
//     detached from an owner that goes away; 5. functions and procedures created or replaced
//  6. foreign keys that go away or change, and those that depend on a key or column about to change
//  7. primary keys, unique, check and exclusion constraints and indexes that go away or change; renames
//  8. tables created, parents before partitions and children (with their keys, checks and indexes;
//     never their foreign keys)
//  9. columns added and altered (one step per change, see plan-columns.ts; inherited columns change
//     with their parent's)
// 10. primary keys, unique, check and exclusion constraints added or validated; indexes created
// 11. foreign keys added or validated; 12. views created (dependencies first), then triggers
// 13. sequences attached to their owning column; comments, trigger states
// 14. drops last: tables (children first), then columns (each after its backup when `backup_drops`),
//     functions, sequences, enums, extensions, schemas.
// Then the order is corrected by what depends on what (plan-graph.ts): the catalog's dependency
// edges put a function returning a table's rows after the table, a caller after its callee in
// another schema, a reader of a retyped column after the ALTER, and every drop before the drops
// of what its object read; a table and the function its default calls, which read each other, are
// split as pg_dump splits them (plan-cycles.ts).
// PostgreSQL adjustments after the phases: INHERIT after the child's keys and checks; a serial's
// sequence dropped right before its column's ADD IDENTITY (and one created back right after DROP
// IDENTITY), so the names match; stored generated columns stepping aside around a retype of what
// they read (plan-generated.ts). Comments on constraints, indexes, enums and sequences that change
// alone are set late (plan-comments.ts).
//
// What it does not manage: objects outside the model's scope (rules, policies, domains, composite
// types) are reported in `notes`, never altered; renamed tables or columns show as a drop and an
// add (the diff matches them by name).
import { diffUnmanaged } from '../schema/diff.ts';
import { traitsOf } from '../schema/engine-traits.ts';
import { type SchemaModel, type SequenceModel, type TableModel, tableKey } from '../schema/model.ts';
import { backupName } from './backup.ts';
import { dependencyOrder } from './dependency-order.ts';
import { type MigrationOperation, ref } from './operations.ts';
import { planComments } from './plan-comments.ts';
import { dependantsOf, hasDependants } from './plan-dependants.ts';
import { generatedStepAside } from './plan-generated.ts';
import { columnNodeKey, descendantsOf, orderByDependencies, rowTypeKey } from './plan-graph.ts';
import { planLineage } from './plan-lineage.ts';
import { planObjects } from './plan-objects.ts';
import { onlineOperations } from './plan-online.ts';
import { planColumnDrops, planDependentForeignKeys } from './plan-table-drops.ts';
import { type Phases, planTable } from './plan-tables.ts';
import { columnKey, type PlanNote, planEnums, planExtensions, planSequences } from './plan-types.ts';
import { scopeModel, type TableScope } from './scope.ts';

export type { PlanNote } from './plan-types.ts';

export interface PlanOptions extends TableScope {
  /** Copy dropped tables and columns into backup objects first, so that the rollback restores their rows. */
  backup_drops?: boolean | undefined;
  /** Names the backup objects; required with `backup_drops`. */
  plan_id?: string | undefined;
  /**
   * PostgreSQL (docs/contract.md §8 `online`): checks and foreign keys of existing tables added NOT VALID and
   * validated after the transaction, NOT NULL through a validated check, indexes CONCURRENTLY.
   */
  online?: boolean | undefined;
  /**
   * PostgreSQL: build new non-unique indexes of existing tables CONCURRENTLY. Such statements cannot
   * run in a transaction: they run after it.
   */
  concurrent_indexes?: boolean | undefined;
}

export interface OperationPlan {
  operations: MigrationOperation[];
  notes: PlanNote[];
}

export function planOperations(
  source: SchemaModel,
  target: SchemaModel,
  options: PlanOptions = {},
): OperationPlan {
  if (source.dialect !== target.dialect)
    throw new Error(`Cannot plan a ${source.dialect} source against a ${target.dialect} target`);
  if (options.backup_drops && !options.plan_id) throw new Error('backup_drops needs a plan_id');
  const src = scopeModel(source, options);
  const tgt = scopeModel(target, options);
  const engine = traitsOf(tgt.dialect);
  const notes: PlanNote[] = [];
  const p = emptyPhases();

  const srcTables = new Map(src.tables.map((table) => [tableKey(table), table]));
  let tgtTables = new Map(tgt.tables.map((table) => [tableKey(table), table]));
  const removed = tgt.tables.filter((table) => !srcTables.has(tableKey(table)));
  // Sequences owned by a dropped column go with it; the drop's rollback must create them again.
  let ownedByDropped = new Map<string, SequenceModel[]>();
  const droppedColumns = droppedColumnKeys(tgt, removed, srcTables);

  if (engine.typeObjects) {
    const enums = planEnums(src, tgt, target);
    const sequences = planSequences(src, tgt, droppedColumns);
    p.first.push(...enums.addValues.map((op) => withDependants(op, tgt)));
    p.types.push(...planExtensions(src, tgt), ...enums.create, ...sequences.early);
    p.late.push(...sequences.owners);
    p.dropTypes.push(...sequences.drop, ...enums.drop);
    tgtTables = withDefaults(tgtTables, enums.defaults);
    notes.push(...enums.notes, ...sequences.notes);
    ownedByDropped = sequences.ownedByDropped;
  }

  const rebuilt = new Set<string>();
  // Parents before their partitions and inheritance children.
  for (const table of lineageOrder(src.tables)) {
    const existing = tgtTables.get(tableKey(table));
    if (existing && engine.tableLineage && needsRebuild(existing, table)) {
      const owned = tgt.sequences.filter(
        (s) => s.owned_by !== null && s.owned_by.schema === table.schema && s.owned_by.table === table.name,
      );
      p.createTables.push({
        kind: 'rebuild_table',
        before: { ...existing, foreign_keys: [] },
        after: { ...table, foreign_keys: [] },
        sequences: owned,
      });
      for (const key of existing.foreign_keys)
        p.dropForeignKeys.push({ kind: 'drop_foreign_key', table: ref(table), key });
      for (const key of table.foreign_keys)
        p.addForeignKeys.push({ kind: 'add_foreign_key', table: ref(table), key });
      rebuilt.add(tableKey(table));
      planLineage(p, notes, { ...existing, partitioning: table.partitioning ?? null }, table);
      continue;
    }
    if (existing)
      planTable(p, existing, table, engine, { ...options, default_collation: tgt.default_collation }, notes);
    else {
      p.createTables.push({ kind: 'create_table', table: { ...table, foreign_keys: [] } });
      for (const key of table.foreign_keys)
        p.addForeignKeys.push({ kind: 'add_foreign_key', table: ref(table), key });
    }
  }
  planDependentForeignKeys(p, src, tgt, engine, rebuilt);

  let backups = 0;
  const nextBackup = (table: string, column?: string) => {
    backups += 1;
    return backupName(tgt.dialect, options.plan_id ?? '', backups, table, column);
  };
  // Parents first: a child drops a column its parent dropped ONLY (plan-table-drops.ts) after it.
  for (const table of lineageOrder(tgt.tables)) {
    const wanted = srcTables.get(tableKey(table));
    if (wanted) planColumnDrops(p, notes, tgt, table, wanted, options, nextBackup, ownedByDropped, srcTables);
  }
  // Partitions and children before their parents (a parent cannot go while a child inherits from it).
  for (const table of lineageOrder(removed).reverse()) {
    for (const key of table.foreign_keys)
      p.dropForeignKeys.push({ kind: 'drop_foreign_key', table: ref(table), key });
    const sequences = table.columns.flatMap(
      (column) =>
        ownedByDropped.get(columnKey({ schema: table.schema, table: table.name, column: column.name })) ?? [],
    );
    const backup = options.backup_drops ? nextBackup(table.name) : null;
    if (backup !== null) p.dropTables.push({ kind: 'backup_table', table, backup });
    p.dropTables.push({ kind: 'drop_table', table, backup, sequences });
    const triggers = tgt.unmanaged.filter(
      (item) => item.kind === 'trigger' && item.schema === table.schema && item.table === table.name,
    );
    if (triggers.length > 0 && !(src.triggers && tgt.triggers))
      notes.push({
        object: tableKey(table),
        message: `Dropping the table drops its triggers (${triggers.map((t) => t.name).join(', ')}), which are not managed: a rollback does not recreate them.`,
      });
  }
  if (backups > 0) p.types.unshift({ kind: 'ensure_backup_schema' });
  planObjects(p, notes, src, tgt);
  if (engine.typeObjects) planComments(p, src, tgt);

  notes.push(...unmanagedNotes(src, tgt));

  if (engine.tableLineage) {
    // INHERIT wants the child to hold the parent's checks already: after the keys and checks.
    const inherits = p.addKeys.filter((op) => op.kind === 'inherit');
    p.addKeys = [...p.addKeys.filter((op) => op.kind !== 'inherit'), ...inherits];
  }
  if (engine.typeObjects) swapSerialAndIdentity(p);
  if (engine.generatedExpressions) generatedStepAside(p, tgtTables, srcTables);
  const phased = [
    ...p.first,
    ...p.createSchemas,
    ...p.dropTriggers,
    ...p.dropViews,
    ...p.types,
    ...p.routines,
    ...p.dropForeignKeys,
    ...p.dropKeys,
    ...p.renames,
    ...p.createTables,
    ...p.columns,
    ...p.addKeys,
    ...p.indexes,
    ...p.addForeignKeys,
    ...p.createViews,
    ...p.createTriggers,
    ...p.late,
    // Tables before columns: a partition or inheritance child that goes is backed up with every
    // column its parent still has (and its rollback recreates it once they are back).
    ...p.dropTables,
    ...p.dropColumns,
    ...p.dropRoutines,
    ...p.dropTypes,
    ...p.dropExtensions,
    ...p.dropSchemas,
  ];
  const operations = orderByDependencies(phased, descendantsOf([...tgt.tables, ...src.tables]));
  return {
    operations: options.online && engine.deferredValidation ? onlineOperations(operations) : operations,
    notes,
  };
}

/** Whether objects of an unmanaged-list kind are planned from the models' own sections. */
function managedKind(src: SchemaModel, tgt: SchemaModel, kind: string): boolean {
  const both = (section: keyof SchemaModel) => src[section] !== undefined && tgt[section] !== undefined;
  if (kind === 'view' || kind === 'materialized_view') return both('views');
  if (kind === 'function' || kind === 'procedure') return both('routines');
  if (kind === 'trigger') return both('triggers');
  if (kind === 'extension') return both('extensions');
  if (kind === 'domain' || kind === 'type') return both('types');
  if (kind === 'policy') return src.model_version !== undefined && tgt.model_version !== undefined;
  return false;
}

/** A table (not a partition) whose own partitioning key changes: PostgreSQL cannot alter that. */
function needsRebuild(from: TableModel, to: TableModel): boolean {
  if (from.partitioning?.parent || to.partitioning?.parent) return false;
  return (from.partitioning?.key ?? null) !== (to.partitioning?.key ?? null);
}

/** Tables with each parent (partitioned table, inheritance parent) before its children. */
function lineageOrder(tables: TableModel[]): TableModel[] {
  return dependencyOrder(tables, tableKey, (table) =>
    [...(table.partitioning?.parent ? [table.partitioning.parent] : []), ...(table.inherits ?? [])].map(
      tableKey,
    ),
  );
}

function describeUnmanaged(item: {
  kind: string;
  schema: string | null;
  name: string;
  table: string | null;
}) {
  const name = item.schema === null ? item.name : `${item.schema}.${item.name}`;
  return `${item.kind} ${name}${item.table === null ? '' : ` on ${item.table}`}`;
}

/** The target's tables with the defaults an enum swap already sets (plan-types.ts `defaults`). */
function withDefaults(
  tables: Map<string, TableModel>,
  defaults: Map<string, { default: string | null; default_normalized: string | null }>,
): Map<string, TableModel> {
  if (defaults.size === 0) return tables;
  const out = new Map<string, TableModel>();
  for (const [key, table] of tables) {
    const columns = table.columns.map((column) => {
      const set = defaults.get(columnKey({ schema: table.schema, table: table.name, column: column.name }));
      return set ? { ...column, ...set } : column;
    });
    out.set(key, { ...table, columns });
  }
  return out;
}

/**
 * A serial column made identity (or back): the identity's sequence takes the conventional name
 * (`table_column_seq`) the serial's sequence holds. So the serial's sequence goes right after the
 * column's default (before ADD … AS IDENTITY), and one created for a former identity comes right
 * after DROP IDENTITY; otherwise the server picks another name (`…_seq1`), or refuses the create.
 */
function swapSerialAndIdentity(p: Phases): void {
  const ownedBy = (op: MigrationOperation) =>
    op.kind === 'drop_sequence' && op.sequence.owned_by ? columnKey(op.sequence.owned_by) : null;
  const columnOf = (op: Extract<MigrationOperation, { kind: 'alter_column' }>) =>
    columnKey({ schema: op.table.schema, table: op.table.name, column: op.after.name });
  for (let i = 0; i < p.columns.length; i += 1) {
    const op = p.columns[i]!;
    if (op.kind !== 'alter_column') continue;
    if (op.change === 'add_identity') {
      const at = p.dropTypes.findIndex((drop) => ownedBy(drop) === columnOf(op));
      if (at < 0) continue;
      p.columns.splice(i, 0, ...p.dropTypes.splice(at, 1));
      i += 1;
    } else if (op.change === 'drop_identity') {
      const name = `${op.table.schema}.${op.table.name}_${op.after.name}_seq`;
      const at = p.types.findIndex(
        (create) =>
          create.kind === 'create_sequence' && `${create.sequence.schema}.${create.sequence.name}` === name,
      );
      if (at < 0) continue;
      p.columns.splice(i + 1, 0, ...p.types.splice(at, 1));
      i += 1;
    }
  }
}

/**
 * An added enum value with what reads the type or its columns in the target: its rollback swaps
 * the type back, which the server refuses under them.
 */
function withDependants(op: MigrationOperation, tgt: SchemaModel): MigrationOperation {
  if (op.kind !== 'add_enum_value') return op;
  const broken = new Set([
    `type:${op.enum.schema}.${op.enum.name}`,
    `type:${op.enum.schema}._${op.enum.name}`,
    ...op.uses.flatMap((use) => [columnNodeKey(use.table, use.column.name), rowTypeKey(use.table)]),
  ]);
  const dependants = dependantsOf(tgt, broken);
  return hasDependants(dependants) ? { ...op, dependants } : op;
}

/** Every phase of a plan, empty: statements are sorted into them, then concatenated in this order. */
function emptyPhases(): Phases {
  return {
    first: [],
    createSchemas: [],
    dropTriggers: [],
    dropViews: [],
    types: [],
    routines: [],
    dropForeignKeys: [],
    dropKeys: [],
    renames: [],
    createTables: [],
    columns: [],
    addKeys: [],
    indexes: [],
    addForeignKeys: [],
    createViews: [],
    createTriggers: [],
    late: [],
    dropColumns: [],
    dropTables: [],
    dropRoutines: [],
    dropTypes: [],
    dropExtensions: [],
    dropSchemas: [],
  };
}

/** The columns the plan drops, with those of the tables it drops: `columnKey`s. */
function droppedColumnKeys(
  tgt: SchemaModel,
  removed: TableModel[],
  srcTables: Map<string, TableModel>,
): Set<string> {
  const dropped = new Set<string>();
  for (const table of removed)
    for (const column of table.columns)
      dropped.add(columnKey({ schema: table.schema, table: table.name, column: column.name }));
  for (const table of tgt.tables) {
    const wanted = srcTables.get(tableKey(table));
    if (!wanted) continue;
    const names = new Set(wanted.columns.map((column) => column.name));
    for (const column of table.columns)
      if (!names.has(column.name))
        dropped.add(columnKey({ schema: table.schema, table: table.name, column: column.name }));
  }
  return dropped;
}

/** Notes on the objects the plan leaves alone because they are not managed. */
function unmanagedNotes(src: SchemaModel, tgt: SchemaModel): PlanNote[] {
  const out: PlanNote[] = [];
  // An enum or sequence no column uses is unmanaged on one side and may be managed on the other:
  // only objects the other side does not have at all are worth a note.
  const managed = (model: SchemaModel, item: { kind: string; schema: string | null; name: string }) =>
    managedKind(src, tgt, item.kind) ||
    (item.kind === 'enum' ? model.enums : item.kind === 'sequence' ? model.sequences : []).some(
      (other) => other.schema === item.schema && other.name === item.name,
    );
  const unmanaged = diffUnmanaged(tgt, src);
  for (const item of unmanaged.added)
    if (!managed(tgt, item))
      out.push({
        object: describeUnmanaged(item),
        message: 'Only in the source; not managed: not created.',
      });
  for (const item of unmanaged.removed)
    if (!managed(src, item))
      out.push({
        object: describeUnmanaged(item),
        message: 'Only in the target; not managed: left as it is.',
      });
  return out;
}

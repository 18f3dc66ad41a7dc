// PostgreSQL objects that columns depend on: enum types, sequences, and the extension a column's
// type comes from. They are planned before the tables (a column cannot use a type that does not
// exist yet) and dropped after them (a type cannot go while a column uses it).

import type { ColumnModel, ColumnRef, SchemaModel, SequenceModel } from '../schema/model.ts';
import { tableKey } from '../schema/model.ts';
import type { EnumUse, MigrationOperation } from './operations.ts';

export interface PlanNote {
  object: string;
  message: string;
}

const key = (item: { schema: string; name: string }) => `${item.schema}.${item.name}`;

function unmanagedNamed(model: SchemaModel, kind: 'enum' | 'sequence', name: string): boolean {
  return model.unmanaged.some((item) => item.kind === kind && `${item.schema}.${item.name}` === name);
}

/** Whether `sub` appears in `all` in the same order (values were only added). */
function isSubsequence(sub: string[], all: string[]): boolean {
  let at = 0;
  for (const value of all) if (at < sub.length && sub[at] === value) at += 1;
  return at === sub.length;
}

function findColumn(model: SchemaModel, use: ColumnRef): ColumnModel | undefined {
  const table = model.tables.find((t) => t.schema === use.schema && t.name === use.table);
  return table?.columns.find((column) => column.name === use.column);
}

export interface EnumPlan {
  /** ALTER TYPE … ADD VALUE: cannot be used in the transaction that adds it, so it runs first. */
  addValues: MigrationOperation[];
  create: MigrationOperation[];
  drop: MigrationOperation[];
  /** Columns (columnKey) whose default a swap sets to the source's: their column plan starts there. */
  defaults: Map<string, { default: string | null; default_normalized: string | null }>;
  notes: PlanNote[];
}

/**
 * `fullTarget` is the target before scoping: a recreated enum must move every column that uses it,
 * in scope or not, or the old type could not be dropped.
 */
export function planEnums(source: SchemaModel, target: SchemaModel, fullTarget: SchemaModel): EnumPlan {
  const plan: EnumPlan = { addValues: [], create: [], drop: [], defaults: new Map(), notes: [] };
  const before = new Map(target.enums.map((item) => [key(item), item]));
  const after = new Map(source.enums.map((item) => [key(item), item]));
  for (const [name, wanted] of after) {
    const existing = before.get(name);
    if (!existing) {
      if (unmanagedNamed(target, 'enum', name)) {
        plan.notes.push({
          object: name,
          message: 'The enum exists in the target but no column uses it there: it is used as it is.',
        });
      } else {
        plan.create.push({ kind: 'create_enum', enum: wanted });
      }
      continue;
    }
    if (JSON.stringify(existing.values) === JSON.stringify(wanted.values)) continue;
    const uses: EnumUse[] = [];
    for (const use of existing.used_by) {
      const column = findColumn(fullTarget, use);
      if (column) uses.push({ table: { schema: use.schema, name: use.table }, column });
    }
    if (isSubsequence(existing.values, wanted.values)) {
      const current = [...existing.values];
      wanted.values.forEach((value, i) => {
        if (current.includes(value)) return;
        const previous = i > 0 ? wanted.values[i - 1]! : null;
        const op: MigrationOperation = {
          kind: 'add_enum_value',
          enum: { ...existing, values: [...current] },
          value,
          after: previous,
          before: previous === null ? (current[0] ?? null) : null,
          uses,
        };
        plan.addValues.push(op);
        current.splice(previous === null ? 0 : current.indexOf(previous) + 1, 0, value);
      });
    } else {
      // A column that keeps this type takes the source's default with the swap: its old default
      // may name a value the new type lacks, and a later SET DEFAULT (or its rollback) would run
      // against the wrong type.
      for (const use of uses) {
        const ref = { schema: use.table.schema, table: use.table.name, column: use.column.name };
        const next = findColumn(source, ref);
        if (!next || next.type !== use.column.type) continue;
        use.default_after = next.default;
        plan.defaults.set(columnKey(ref), {
          default: next.default,
          default_normalized: next.default_normalized,
        });
      }
      plan.create.push({ kind: 'recreate_enum', enum: existing, values: wanted.values, uses });
    }
  }
  for (const [name, existing] of before) {
    if (!after.has(name) && !unmanagedNamed(source, 'enum', name))
      plan.drop.push({ kind: 'drop_enum', enum: existing });
  }
  return plan;
}

export interface SequencePlan {
  /** Created, altered, and detached from owners that go away: before the tables change. */
  early: MigrationOperation[];
  /** Attached to their new owning column, once it exists. */
  owners: MigrationOperation[];
  drop: MigrationOperation[];
  /** Sequences that go with a dropped column or table (DROP … drops what a column owns). */
  ownedByDropped: Map<string, SequenceModel[]>;
  notes: PlanNote[];
}

const sequenceParams = (s: SequenceModel) =>
  JSON.stringify([s.data_type, s.start, s.increment, s.min_value, s.max_value, s.cache, s.cycle]);
const sameRef = (a: ColumnRef | null, b: ColumnRef | null) => JSON.stringify(a) === JSON.stringify(b);
export const columnKey = (ref: ColumnRef) => JSON.stringify([ref.schema, ref.table, ref.column]);

/**
 * `droppedColumns`: keys (columnKey) of the target's columns that the plan drops, alone or with
 * their table. A sequence they own and the source does not have goes with them, unplanned.
 */
export function planSequences(
  source: SchemaModel,
  target: SchemaModel,
  droppedColumns: Set<string>,
): SequencePlan {
  const plan: SequencePlan = { early: [], owners: [], drop: [], ownedByDropped: new Map(), notes: [] };
  const before = new Map(target.sequences.map((item) => [key(item), item]));
  for (const wanted of source.sequences) {
    const name = key(wanted);
    const existing = before.get(name);
    if (!existing) {
      if (unmanagedNamed(target, 'sequence', name)) {
        plan.notes.push({
          object: name,
          message: 'The sequence exists in the target but no column uses it there: its parameters are kept.',
        });
      } else {
        plan.early.push({ kind: 'create_sequence', sequence: { ...wanted, owned_by: null } });
      }
      if (wanted.owned_by !== null)
        plan.owners.push({
          kind: 'set_sequence_owner',
          sequence: wanted,
          before: null,
          after: wanted.owned_by,
        });
      continue;
    }
    if (sequenceParams(existing) !== sequenceParams(wanted))
      plan.early.push({
        kind: 'alter_sequence',
        before: existing,
        after: { ...wanted, owned_by: existing.owned_by },
      });
    if (!sameRef(existing.owned_by, wanted.owned_by)) {
      const op: MigrationOperation = {
        kind: 'set_sequence_owner',
        sequence: wanted,
        before: existing.owned_by,
        after: wanted.owned_by,
      };
      // Detached before anything is dropped (or it would go with its old owner), attached late.
      if (wanted.owned_by === null) plan.early.push(op);
      else plan.owners.push(op);
    }
  }
  const wantedNames = new Set(source.sequences.map(key));
  for (const existing of target.sequences) {
    const name = key(existing);
    if (wantedNames.has(name)) continue;
    const owner = existing.owned_by;
    if (unmanagedNamed(source, 'sequence', name)) {
      if (owner !== null && droppedColumns.has(columnKey(owner)))
        plan.early.push({ kind: 'set_sequence_owner', sequence: existing, before: owner, after: null });
      continue;
    }
    if (owner !== null && droppedColumns.has(columnKey(owner))) {
      const list = plan.ownedByDropped.get(columnKey(owner)) ?? [];
      list.push(existing);
      plan.ownedByDropped.set(columnKey(owner), list);
    } else {
      plan.drop.push({ kind: 'drop_sequence', sequence: existing });
    }
  }
  return plan;
}

// Types that come from an extension, by their name without schema (the extension's own name when
// it is the type's). Only these are created for a column that needs them: other extensions are
// outside the managed scope (listed as unmanaged objects).
const EXTENSION_TYPES: Record<string, string> = {
  citext: 'citext',
  hstore: 'hstore',
  ltree: 'ltree',
  lquery: 'ltree',
  ltxtquery: 'ltree',
  cube: 'cube',
  seg: 'seg',
  isbn: 'isn',
  isbn13: 'isn',
  issn: 'isn',
  issn13: 'isn',
  ismn: 'isn',
  ismn13: 'isn',
  ean13: 'isn',
  upc: 'isn',
  lo: 'lo',
  geometry: 'postgis',
  geography: 'postgis',
  vector: 'vector',
  halfvec: 'vector',
  sparsevec: 'vector',
};

/** `public.citext(…)[]` → schema `public`, name `citext`. */
function baseType(type: string): { schema: string | null; name: string } {
  const bare = type.replace(/(\[\])+$/, '').replace(/\(.*\)$/, '');
  const dot = bare.lastIndexOf('.');
  return dot < 0 ? { schema: null, name: bare } : { schema: bare.slice(0, dot), name: bare.slice(dot + 1) };
}

/** CREATE EXTENSION for the extensions the source's new or retyped columns need and the target lacks. */
export function planExtensions(source: SchemaModel, target: SchemaModel): MigrationOperation[] {
  const has = (model: SchemaModel, name: string) =>
    model.unmanaged.some((item) => item.kind === 'extension' && item.name === name);
  const targetTypes = new Map<string, string>();
  for (const table of target.tables)
    for (const column of table.columns) targetTypes.set(`${tableKey(table)}.${column.name}`, column.type);
  const ops = new Map<string, MigrationOperation>();
  for (const table of source.tables) {
    for (const column of table.columns) {
      if (targetTypes.get(`${tableKey(table)}.${column.name}`) === column.type) continue;
      const type = baseType(column.type);
      const extension = EXTENSION_TYPES[type.name];
      if (extension && has(source, extension) && !has(target, extension) && !ops.has(extension))
        ops.set(extension, { kind: 'create_extension', name: extension, schema: type.schema });
    }
  }
  return [...ops.values()];
}

/** The operations of a plan by phase, concatenated in this order (see plan.ts). */
export interface Phases {
  first: MigrationOperation[];
  createSchemas: MigrationOperation[];
  dropTriggers: MigrationOperation[];
  dropViews: MigrationOperation[];
  types: MigrationOperation[];
  routines: MigrationOperation[];
  dropForeignKeys: MigrationOperation[];
  dropKeys: MigrationOperation[];
  renames: MigrationOperation[];
  createTables: MigrationOperation[];
  columns: MigrationOperation[];
  addKeys: MigrationOperation[];
  indexes: MigrationOperation[];
  addForeignKeys: MigrationOperation[];
  createViews: MigrationOperation[];
  createTriggers: MigrationOperation[];
  late: MigrationOperation[];
  dropColumns: MigrationOperation[];
  dropTables: MigrationOperation[];
  dropRoutines: MigrationOperation[];
  dropTypes: MigrationOperation[];
  dropExtensions: MigrationOperation[];
  dropSchemas: MigrationOperation[];
}

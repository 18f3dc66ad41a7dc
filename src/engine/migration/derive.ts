// The rollback of a statement that is not (or no longer) a planned one: derived from its facts and
// the target's schema before the migration. What was created is dropped, what was renamed is named
// back, a column's type, default or nullability goes back to what the target has, and a dropped
// constraint or index is added back from the target's definition. A dropped table or column, a data
// change, or anything the facts do not describe fully has no rollback (null): the whole edited
// migration then has none, as docs/contract.md §8 wants.
import type { ColumnModel, SchemaModel, TableModel } from '../schema/model.ts';
import type { StatementFact } from './facts.ts';
import type { Inverse } from './invert.ts';
import { tableResolver } from './lint-context.ts';
import type { ColumnChange, MigrationOperation, TableRef } from './operations.ts';

function stubTable(table: TableRef): TableModel {
  return {
    schema: table.schema,
    name: table.name,
    comment: null,
    columns: [],
    primary_key: null,
    unique_constraints: [],
    check_constraints: [],
    exclusion_constraints: [],
    foreign_keys: [],
    indexes: [],
  };
}

function stubColumn(name: string): ColumnModel {
  return {
    name,
    ordinal_position: 0,
    type: '',
    nullable: true,
    default: null,
    default_normalized: null,
    identity: null,
    auto_increment: false,
    generated: null,
    on_update: null,
    collation: null,
    comment: null,
  };
}

const noDeferral = { deferrable: false, initially_deferred: false };

/** The operations that undo one statement with these facts, or null when they cannot be derived. */
export function deriveInverse(facts: StatementFact[], target: SchemaModel | null): Inverse | null {
  const resolve = tableResolver({ dialect: target?.dialect ?? 'postgresql', target });
  const operations: MigrationOperation[] = [];
  const lossy: string[] = [];
  const lookup = (table: TableRef | null, index?: string): TableModel | null => {
    if (table !== null) return resolve(table).model;
    // PostgreSQL's DROP INDEX names no table: the target's table that has the index.
    const owners = (target?.tables ?? []).filter((t) => t.indexes.some((i) => i.name === index));
    return owners.find((t) => t.schema === 'public') ?? owners[0] ?? null;
  };
  for (const fact of [...facts].reverse()) {
    const undo = invertFact(fact, lookup);
    if (undo === null) return null;
    operations.push(...undo.operations);
    if (undo.lossy) lossy.push(undo.lossy);
  }
  return { operations, lossy: lossy.length > 0 ? lossy.join('; ') : null };
}

type Lookup = (table: TableRef | null, index?: string) => TableModel | null;

function invertFact(fact: StatementFact, lookup: Lookup): Inverse | null {
  const done = (...operations: MigrationOperation[]): Inverse => ({ operations, lossy: null });
  switch (fact.action) {
    case 'set_lock_timeout':
    case 'transaction_control':
    case 'validate_constraint':
      return done();
    case 'create_table':
      return done({ kind: 'drop_table', table: stubTable(fact.table), backup: null, sequences: [] });
    case 'rename_table':
      return done({
        kind: 'rename_table',
        table: { schema: fact.table.schema, name: fact.to },
        to: fact.table.name,
      });
    case 'add_column':
      return done({
        kind: 'drop_column',
        table: fact.table,
        column: stubColumn(fact.column),
        backup: null,
        sequences: [],
      });
    case 'rename_column':
      return done({ kind: 'rename_column', table: fact.table, from: fact.to, to: fact.column });
    case 'create_index':
      if (fact.name === null) return null;
      return done({
        kind: 'drop_index',
        table: fact.table,
        index: {
          name: fact.name,
          columns: [],
          include: [],
          unique: fact.unique,
          method: 'btree',
          predicate: null,
        },
        concurrently: fact.concurrently,
      });
    case 'rename_index':
      return fact.table === null
        ? null
        : done({ kind: 'rename_index', table: fact.table, from: fact.to, to: fact.name });
    case 'rename_constraint':
      return done({ kind: 'rename_constraint', table: fact.table, from: fact.to, to: fact.name });
    case 'add_constraint':
      return dropConstraint(fact);
    case 'drop_constraint':
    case 'drop_index':
      return addBack(fact, lookup);
    case 'alter_column_type':
    case 'modify_column':
    case 'set_not_null':
    case 'drop_not_null':
    case 'set_default':
    case 'drop_default':
      return columnBack(fact, lookup);
    default:
      // Drops of tables and columns, data changes, enums, sequences, anything not described.
      return null;
  }
}

function dropConstraint(fact: Extract<StatementFact, { action: 'add_constraint' }>): Inverse | null {
  const { table } = fact;
  const name = fact.name;
  const op = (operation: MigrationOperation): Inverse => ({ operations: [operation], lossy: null });
  switch (fact.constraint) {
    case 'primary_key':
      // MySQL's primary key is always PRIMARY; PostgreSQL's needs its name.
      if (name === null && table.schema !== null) return null;
      return op({
        kind: 'drop_primary_key',
        table,
        key: { name: name ?? 'PRIMARY', columns: fact.columns, ...noDeferral },
      });
    case 'unique':
      return name === null
        ? null
        : op({ kind: 'drop_unique', table, constraint: { name, columns: fact.columns, ...noDeferral } });
    case 'check':
      return name === null ? null : op({ kind: 'drop_check', table, constraint: { name, expression: '' } });
    case 'exclusion':
      return name === null
        ? null
        : op({ kind: 'drop_exclusion', table, constraint: { name, definition: '', ...noDeferral } });
    case 'foreign_key':
      if (name === null) return null;
      return op({
        kind: 'drop_foreign_key',
        table,
        key: {
          name,
          columns: fact.columns,
          referenced_schema: null,
          referenced_table: '',
          referenced_columns: [],
          on_update: 'no action',
          on_delete: 'no action',
          ...noDeferral,
        },
      });
  }
}

/** A dropped constraint or index, added back as the target defines it. */
function addBack(
  fact: Extract<StatementFact, { action: 'drop_constraint' | 'drop_index' }>,
  lookup: Lookup,
): Inverse | null {
  const name = fact.name;
  if (name === null) return null;
  const model = lookup(fact.table, fact.action === 'drop_index' ? name : undefined);
  if (model === null) return null;
  const table = { schema: model.schema, name: model.name };
  const op = (operation: MigrationOperation): Inverse => ({ operations: [operation], lossy: null });
  if (fact.action === 'drop_index') {
    const index = model.indexes.find((i) => i.name === name);
    return index ? op({ kind: 'create_index', table, index, concurrently: fact.concurrently }) : null;
  }
  if (model.primary_key && (model.primary_key.name === name || fact.constraint === 'primary_key'))
    return op({ kind: 'add_primary_key', table, key: model.primary_key });
  const unique = model.unique_constraints.find((c) => c.name === name);
  if (unique) return op({ kind: 'add_unique', table, constraint: unique });
  const check = model.check_constraints.find((c) => c.name === name);
  if (check) return op({ kind: 'add_check', table, constraint: check });
  const exclusion = model.exclusion_constraints.find((c) => c.name === name);
  if (exclusion) return op({ kind: 'add_exclusion', table, constraint: exclusion });
  const key = model.foreign_keys.find((k) => k.name === name);
  if (key) return op({ kind: 'add_foreign_key', table, key });
  return null;
}

/** A column change undone by altering the column back to the target's definition. */
function columnBack(
  fact: Extract<
    StatementFact,
    {
      action:
        | 'alter_column_type'
        | 'modify_column'
        | 'set_not_null'
        | 'drop_not_null'
        | 'set_default'
        | 'drop_default';
    }
  >,
  lookup: Lookup,
): Inverse | null {
  const model = lookup(fact.table);
  const original = model?.columns.find((c) => c.name === fact.column);
  if (!model || !original) return null;
  const table = { schema: model.schema, name: model.name };
  let changed: ColumnModel;
  let change: ColumnChange;
  let lossy: string | null = null;
  switch (fact.action) {
    case 'alter_column_type':
    case 'modify_column':
      changed =
        fact.action === 'modify_column'
          ? { ...original, type: fact.type, nullable: !fact.not_null }
          : { ...original, type: fact.to };
      change = 'type';
      if (changed.type !== original.type)
        lossy = `changing ${changed.type} back to ${original.type} can cut or refuse values written since`;
      break;
    case 'set_not_null':
      changed = { ...original, nullable: false };
      change = 'drop_not_null';
      break;
    case 'drop_not_null':
      changed = { ...original, nullable: true };
      change = 'set_not_null';
      break;
    default:
      changed = { ...original, default: '', default_normalized: '' };
      change = original.default === null ? 'drop_default' : 'set_default';
  }
  const steps: MigrationOperation[] = [
    { kind: 'alter_column', change, table, before: changed, after: original },
  ];
  // PostgreSQL renders one step: a type change whose nullability moved needs its own step too.
  if (change === 'type' && changed.nullable !== original.nullable)
    steps.push({
      kind: 'alter_column',
      change: original.nullable ? 'drop_not_null' : 'set_not_null',
      table,
      before: { ...original, nullable: changed.nullable },
      after: original,
    });
  return { operations: steps, lossy };
}

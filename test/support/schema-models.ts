// Builders of small schema models for unit tests of the schema engine: every field
// filled with the neutral default, so a test states only what it is about.
import type { SchemaDiff } from '../../src/engine/schema/diff.ts';
import type { ColumnModel, IndexModel, SchemaModel, TableModel } from '../../src/engine/schema/model.ts';

export function makeColumn(name: string, fields: Partial<ColumnModel> = {}): ColumnModel {
  return {
    name,
    ordinal_position: 1,
    type: 'integer',
    nullable: true,
    default: null,
    default_normalized: null,
    identity: null,
    auto_increment: false,
    generated: null,
    on_update: null,
    collation: null,
    comment: null,
    ...fields,
  };
}

export function makeTable(name: string, fields: Partial<TableModel> = {}): TableModel {
  return {
    schema: 'public',
    name,
    comment: null,
    columns: [],
    primary_key: null,
    unique_constraints: [],
    check_constraints: [],
    exclusion_constraints: [],
    foreign_keys: [],
    indexes: [],
    ...fields,
  };
}

export function makeIndex(name: string, columns: string[], fields: Partial<IndexModel> = {}): IndexModel {
  return { name, columns, include: [], unique: false, method: 'btree', predicate: null, ...fields };
}

export function makeSchema(tables: TableModel[], fields: Partial<SchemaModel> = {}): SchemaModel {
  return {
    dialect: 'postgresql',
    flavor: 'postgresql',
    server_version: '15.0',
    tables,
    enums: [],
    sequences: [],
    unmanaged: [],
    ...fields,
  };
}

/**
 * A diff as flat rows, easy to compare whole: `[table, kind, object, severity]` for every change,
 * with `table_added` / `table_removed` rows for whole tables.
 */
export function diffRows(diff: SchemaDiff): [string, string, string, string][] {
  return [
    ...diff.tables_added.map((t): [string, string, string, string] => [
      t.table,
      'table_added',
      t.table,
      t.severity,
    ]),
    ...diff.tables_removed.map((t): [string, string, string, string] => [
      t.table,
      'table_removed',
      t.table,
      t.severity,
    ]),
    ...diff.tables_modified.flatMap((t) =>
      t.changes.map((c): [string, string, string, string] => [t.table, c.kind, c.object, c.severity]),
    ),
  ];
}

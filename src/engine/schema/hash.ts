// The canonical JSON of a schema model and its `schema_hash`. The canonical form holds exactly what
// the diff compares, in a fixed order: objects are rebuilt field by field here (so their key order
// is this file's, whatever order introspection produced), and every list is sorted by name. Column
// order, raw defaults, the server version, `used_by` lists and unmanaged objects are left out: a
// reformatted-but-equal default or a reordered catalog does not change the hash, and whatever the
// diff reports (cosmetic included) does.

import { createHash } from 'node:crypto';
import { canonicalObjects } from './hash-objects.ts';
import type { ColumnModel, EnumModel, SchemaModel, SequenceModel, TableModel } from './model.ts';
import { normalizeCheckExpression } from './normalize-expressions.ts';

const byName = <T extends { name: string }>(items: T[]) =>
  [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
const bySchemaName = <T extends { schema: string | null; name: string }>(items: T[]) =>
  [...items].sort((a, b) => {
    const x = `${a.schema ?? ''}\n${a.name}`;
    const y = `${b.schema ?? ''}\n${b.name}`;
    return x < y ? -1 : x > y ? 1 : 0;
  });

export function canonicalSchema(model: SchemaModel): unknown {
  return {
    dialect: model.dialect,
    tables: bySchemaName(model.tables).map(canonicalTable),
    enums: bySchemaName(model.enums).map(canonicalEnum),
    sequences: bySchemaName(model.sequences).map(canonicalSequence),
    ...canonicalObjects(model),
  };
}

/** `{[key]: value}` when the value is set (true, non-empty), else nothing: older hashes stay valid. */
const when = (key: string, value: unknown) =>
  value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0)
    ? {}
    : { [key]: value };

export function canonicalJson(model: SchemaModel): string {
  return JSON.stringify(canonicalSchema(model));
}

/** SHA-256 (hex) of the canonical JSON. */
export function schemaHash(model: SchemaModel): string {
  return createHash('sha256').update(canonicalJson(model)).digest('hex');
}

function canonicalTable(table: TableModel) {
  const pk = table.primary_key;
  const deferral = (item: { deferrable: boolean; initially_deferred: boolean; comment?: string | null }) => ({
    deferrable: item.deferrable,
    initially_deferred: item.initially_deferred,
    ...when('comment', item.comment),
  });
  return {
    schema: table.schema,
    name: table.name,
    comment: table.comment,
    columns: byName(table.columns).map(canonicalColumn),
    primary_key: pk && { name: pk.name, columns: pk.columns, ...deferral(pk) },
    unique_constraints: byName(table.unique_constraints).map((u) => ({
      name: u.name,
      columns: u.columns,
      ...deferral(u),
      ...when('nulls_not_distinct', u.nulls_not_distinct),
      ...when('options', u.options),
    })),
    check_constraints: byName(table.check_constraints).map((c) => ({
      name: c.name,
      // Compared as normalised: a retype re-prints the casts of a check over the column.
      expression: normalizeCheckExpression(c.expression),
      ...when('not_valid', c.not_valid),
      ...when('no_inherit', c.no_inherit),
      ...when('comment', c.comment),
    })),
    exclusion_constraints: byName(table.exclusion_constraints).map((x) => ({
      name: x.name,
      definition: x.definition,
      ...deferral(x),
    })),
    foreign_keys: byName(table.foreign_keys).map((fk) => ({
      name: fk.name,
      columns: fk.columns,
      referenced_schema: fk.referenced_schema,
      referenced_table: fk.referenced_table,
      referenced_columns: fk.referenced_columns,
      on_update: fk.on_update,
      on_delete: fk.on_delete,
      ...deferral(fk),
      ...when('not_valid', fk.not_valid),
      ...when('match_full', fk.match_full),
    })),
    indexes: byName(table.indexes).map((i) => ({
      name: i.name,
      columns: i.columns,
      include: i.include,
      unique: i.unique,
      method: i.method,
      predicate: i.predicate,
      ...when('nulls_not_distinct', i.nulls_not_distinct),
      ...when('options', i.options),
      ...when('comment', i.comment),
      ...when('ignored', i.ignored),
    })),
    ...when(
      'partitioning',
      table.partitioning && {
        key: table.partitioning.key,
        parent: table.partitioning.parent && {
          schema: table.partitioning.parent.schema,
          name: table.partitioning.parent.name,
        },
        bound: table.partitioning.bound,
      },
    ),
    ...when(
      'inherits',
      table.inherits?.map((parent) => ({ schema: parent.schema, name: parent.name })),
    ),
    ...when(
      'table_options',
      table.table_options && {
        engine: table.table_options.engine,
        collation: table.table_options.collation,
        row_format: table.table_options.row_format,
        ...when('system_versioning', table.table_options.system_versioning),
      },
    ),
    ...when(
      'table_storage',
      table.table_storage && {
        parameters: [...table.table_storage.parameters].sort(),
        unlogged: table.table_storage.unlogged,
        replica_identity: table.table_storage.replica_identity,
        ...when('cluster_on', table.table_storage.cluster_on),
      },
    ),
    ...when(
      'row_security',
      table.row_security && { enabled: table.row_security.enabled, forced: table.row_security.forced },
    ),
    ...when(
      'policies',
      table.policies &&
        byName(table.policies).map((p) => ({
          name: p.name,
          command: p.command,
          permissive: p.permissive,
          roles: p.roles,
          using: p.using,
          check: p.check,
        })),
    ),
  };
}

function canonicalColumn(column: ColumnModel) {
  return {
    name: column.name,
    type: column.type,
    nullable: column.nullable,
    default_normalized: column.default_normalized,
    identity: column.identity,
    auto_increment: column.auto_increment,
    generated: column.generated && {
      expression: column.generated.expression,
      stored: column.generated.stored,
    },
    on_update: column.on_update,
    collation: column.collation,
    comment: column.comment,
    ...when('identity_options', column.identity_options && { ...column.identity_options }),
    ...when('inherited', column.inherited),
    ...when('invisible', column.invisible),
    ...when('check', column.check),
    ...when('storage', column.storage),
    ...when('compression', column.compression),
  };
}

function canonicalEnum(item: EnumModel) {
  return { schema: item.schema, name: item.name, values: item.values, ...when('comment', item.comment) };
}

function canonicalSequence(item: SequenceModel) {
  const owner = item.owned_by;
  return {
    schema: item.schema,
    name: item.name,
    data_type: item.data_type,
    start: item.start,
    increment: item.increment,
    min_value: item.min_value,
    max_value: item.max_value,
    cache: item.cache,
    cycle: item.cycle,
    owned_by: owner && { schema: owner.schema, table: owner.table, column: owner.column },
    ...when('comment', item.comment),
  };
}

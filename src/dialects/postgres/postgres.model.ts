// PostgreSQL catalog rows → the neutral schema model. Pure, so the mapping is testable without a
// server; the queries that produce the rows are in postgres.catalog.ts.
import type {
  ColumnModel,
  ColumnRef,
  EnumModel,
  ForeignKeyAction,
  IdentityKind,
  SchemaModel,
  SequenceModel,
  TableModel,
  UnmanagedObject,
} from '../../engine/schema/model.ts';
import { canonicalType, normalizeDefault } from '../../engine/schema/normalize.ts';
import { SCHEMA_MODEL_VERSION } from '../../engine/schema/version.ts';
import type { CatalogRows, ColumnRow, ConstraintRow, TableRow } from './postgres.catalog.ts';
import type { ObjectRows } from './postgres.catalog-objects.ts';
import { buildPostgresObjects, indexExtras } from './postgres.model-objects.ts';

const ACTIONS: Record<string, ForeignKeyAction> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
};

const IDENTITY: Record<string, IdentityKind> = { a: 'always', d: 'by_default' };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `objects`: the rows of postgres.catalog-objects.ts; without them the model has no objects. */
export function buildPostgresModel(rows: CatalogRows, objects?: ObjectRows): SchemaModel {
  const tables = new Map<number, TableModel>();
  for (const row of rows.tables) {
    tables.set(row.oid, {
      schema: row.schema,
      name: row.name,
      comment: row.comment,
      columns: [],
      primary_key: null,
      unique_constraints: [],
      check_constraints: [],
      exclusion_constraints: [],
      foreign_keys: [],
      indexes: [],
      ...lineage(row),
      ...storage(row),
    });
  }
  const ref = (tableOid: number, column: string): ColumnRef | null => {
    const table = tables.get(tableOid);
    return table ? { schema: table.schema, table: table.name, column } : null;
  };

  const enumUses = new Map<number, ColumnRef[]>();
  for (const row of rows.columns) {
    const table = tables.get(row.table_oid);
    if (!table) continue;
    table.columns.push(column(row));
    if (row.enum_oid !== null) {
      const uses = enumUses.get(row.enum_oid) ?? [];
      uses.push({ schema: table.schema, table: table.name, column: row.name });
      enumUses.set(row.enum_oid, uses);
    }
  }
  // A constraint's key comes as attribute numbers (naming them on the server cost more than the
  // rest of its query): named here from the column rows.
  const columnNames = new Map<number, Map<number, string>>();
  for (const row of rows.columns) {
    const names = columnNames.get(row.table_oid) ?? new Map<number, string>();
    names.set(row.position, row.name);
    columnNames.set(row.table_oid, names);
  }
  for (const row of rows.constraints) {
    const table = tables.get(row.table_oid);
    const names = columnNames.get(row.table_oid);
    if (table)
      addConstraint(
        table,
        row,
        row.keys.map((key) => names?.get(key) ?? String(key)),
      );
  }
  for (const row of rows.indexes) {
    tables.get(row.table_oid)?.indexes.push({
      name: row.name,
      columns: row.columns,
      include: row.include,
      unique: row.unique,
      method: row.method,
      predicate: row.predicate,
      ...indexExtras(row),
    });
  }

  if (objects) {
    for (const table of tables.values()) table.policies = [];
    for (const row of objects.policies)
      tables.get(row.table_oid)?.policies?.push({
        name: row.name,
        command: row.command,
        permissive: row.permissive,
        roles: [...row.roles].sort(),
        using: row.using_expr,
        check: row.check_expr,
      });
    for (const row of objects.rowSecurity) {
      const table = tables.get(row.table_oid);
      if (table) table.row_security = { enabled: row.enabled, forced: row.forced };
    }
    for (const row of objects.routineUses ?? []) {
      const table = tables.get(row.table_oid);
      if (!table) continue;
      table.routine_uses = [
        ...(table.routine_uses ?? []),
        { kind: row.kind, name: row.name, routine: `${row.routine_schema}.${row.routine_name}` },
      ];
    }
  }

  const unmanaged: UnmanagedObject[] = rows.unmanaged.map((row) => ({
    kind: row.kind,
    schema: row.schema,
    name: row.name,
    table: row.table_name,
  }));

  const enums: EnumModel[] = [];
  for (const row of rows.enums) {
    // An enum no column uses is still managed: functions, casts and applications use it by name.
    enums.push({
      schema: row.schema,
      name: row.name,
      values: row.values,
      used_by: enumUses.get(row.oid) ?? [],
      ...commented(row.comment),
    });
  }

  const sequenceUses = new Map<number, ColumnRef[]>();
  for (const row of rows.sequenceUses) {
    const use = ref(row.table_oid, row.column_name);
    if (use) sequenceUses.set(row.sequence_oid, [...(sequenceUses.get(row.sequence_oid) ?? []), use]);
  }
  const sequences: SequenceModel[] = [];
  for (const row of rows.sequences) {
    const owner = row.owner_table_oid === null ? null : ref(row.owner_table_oid, row.owner_column!);
    const uses = dedupe([...(owner ? [owner] : []), ...(sequenceUses.get(row.oid) ?? [])]);
    // A free-standing sequence is still managed: functions and applications call nextval on it.
    sequences.push({
      schema: row.schema,
      name: row.name,
      data_type: row.data_type,
      start: row.start,
      increment: row.increment,
      min_value: row.min_value,
      max_value: row.max_value,
      cache: row.cache,
      cycle: row.cycle,
      owned_by: owner,
      used_by: uses,
      ...commented(row.comment),
    });
  }

  const bySchemaName = (
    a: { schema: string | null; name: string },
    b: { schema: string | null; name: string },
  ) => byText(`${a.schema ?? ''}\n${a.name}`, `${b.schema ?? ''}\n${b.name}`);
  const tableList = [...tables.values()].sort(bySchemaName);
  for (const table of tableList) sortTable(table);
  return {
    ...(objects ? { model_version: SCHEMA_MODEL_VERSION, ...buildPostgresObjects(objects) } : {}),
    dialect: 'postgresql',
    flavor: 'postgresql',
    server_version: rows.serverVersion,
    tables: tableList,
    enums: enums.sort(bySchemaName),
    sequences: sequences.sort(bySchemaName),
    unmanaged: unmanaged.sort(
      (a, b) => byText(a.kind, b.kind) || bySchemaName(a, b) || byText(a.table ?? '', b.table ?? ''),
    ),
  };
}

function column(row: ColumnRow): ColumnModel {
  const type = canonicalType(row.type, 'postgresql');
  // A generated column's expression is stored where a default would be.
  const generated = row.generated === 's' && row.default_expr !== null;
  const raw = generated ? null : row.default_expr;
  return {
    name: row.name,
    ordinal_position: row.position,
    type,
    nullable: !row.not_null,
    default: raw,
    default_normalized: normalizeDefault(raw, { flavor: 'postgresql', type }),
    identity: IDENTITY[row.identity] ?? null,
    auto_increment: false,
    generated: generated ? { expression: row.default_expr!, stored: true } : null,
    on_update: null,
    collation: row.collation,
    comment: row.comment,
    ...(row.identity_options ? { identity_options: { ...row.identity_options } } : {}),
    ...(row.inherited ? { inherited: true } : {}),
    ...(row.storage ? { storage: row.storage } : {}),
    ...(row.compression ? { compression: row.compression } : {}),
  };
}

/** Partitioning and inheritance, set only where the table has them (older models lack the fields). */
function lineage(row: TableRow): Pick<TableModel, 'partitioning' | 'inherits'> {
  const parents = row.parents ?? [];
  const isPartition = row.partition_bound != null;
  const out: Pick<TableModel, 'partitioning' | 'inherits'> = {};
  if (row.partition_key != null || isPartition)
    out.partitioning = {
      key: row.partition_key ?? null,
      parent: isPartition && parents[0] ? { schema: parents[0].schema, name: parents[0].name } : null,
      bound: row.partition_bound ?? null,
    };
  const inherits = isPartition ? parents.slice(1) : parents;
  if (inherits.length > 0) out.inherits = inherits.map((p) => ({ schema: p.schema, name: p.name }));
  return out;
}

/** Storage parameters, UNLOGGED, REPLICA IDENTITY and CLUSTER ON, set only where one is not the default. */
function storage(row: TableRow): Pick<TableModel, 'table_storage'> {
  // In the catalog's order (the order they were set): compared sorted (describeTableStorage).
  const parameters = row.storage_parameters ?? [];
  const unlogged = row.unlogged === true;
  const replica = row.replica_identity ?? 'default';
  const cluster = row.cluster_on ?? null;
  if (parameters.length === 0 && !unlogged && replica === 'default' && cluster === null) return {};
  return {
    table_storage: {
      parameters,
      unlogged,
      replica_identity: replica,
      ...(cluster === null ? {} : { cluster_on: cluster }),
    },
  };
}

/** `{comment}` when there is one: objects without stay as older models had them. */
export const commented = (comment: string | null | undefined) => (comment ? { comment } : {});

function addConstraint(table: TableModel, row: ConstraintRow, columns: string[]): void {
  const deferral = {
    deferrable: row.deferrable,
    initially_deferred: row.deferred,
    ...commented(row.comment),
  };
  switch (row.type) {
    case 'p':
      table.primary_key = { name: row.name, columns, ...deferral };
      return;
    case 'u':
      table.unique_constraints.push({
        name: row.name,
        columns,
        ...deferral,
        ...(row.nulls_not_distinct ? { nulls_not_distinct: true } : {}),
        ...(row.index_options?.length ? { options: row.index_options } : {}),
      });
      return;
    case 'c':
      table.check_constraints.push({
        name: row.name,
        expression: row.expression ?? '',
        ...(row.not_valid ? { not_valid: true } : {}),
        ...(row.no_inherit ? { no_inherit: true } : {}),
        ...commented(row.comment),
      });
      return;
    case 'x':
      table.exclusion_constraints.push({ name: row.name, definition: row.definition ?? '', ...deferral });
      return;
    case 'f':
      table.foreign_keys.push({
        name: row.name,
        columns,
        referenced_schema: row.ref_schema,
        referenced_table: row.ref_table ?? '',
        referenced_columns: row.ref_columns ?? [],
        on_update: ACTIONS[row.on_update] ?? 'no action',
        on_delete: ACTIONS[row.on_delete] ?? 'no action',
        ...deferral,
        ...(row.not_valid ? { not_valid: true } : {}),
        ...(row.match_full ? { match_full: true } : {}),
      });
  }
}

function sortTable(table: TableModel): void {
  const byName = (a: { name: string }, b: { name: string }) => byText(a.name, b.name);
  table.columns.sort((a, b) => a.ordinal_position - b.ordinal_position);
  table.unique_constraints.sort(byName);
  table.check_constraints.sort(byName);
  table.exclusion_constraints.sort(byName);
  table.foreign_keys.sort(byName);
  table.indexes.sort(byName);
}

function dedupe(refs: ColumnRef[]): ColumnRef[] {
  const seen = new Set<string>();
  return refs.filter((item) => {
    const key = JSON.stringify([item.schema, item.table, item.column]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

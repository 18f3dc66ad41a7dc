// MySQL/MariaDB information_schema rows → the neutral schema model. Pure, so MySQL 8's formats can
// be tested from recorded rows where only MariaDB runs. Where the two differ: MariaDB quotes
// string defaults and writes `current_timestamp()`; MySQL 8 leaves literals bare and flags
// expression defaults `DEFAULT_GENERATED`; MariaDB stores `json` as longtext plus a CHECK.
import type {
  CheckConstraintModel,
  ColumnModel,
  ForeignKeyAction,
  IndexModel,
  SchemaModel,
  TableModel,
  UnmanagedObject,
} from '../../engine/schema/model.ts';
import { canonicalType, isMariaDbJsonCheck, normalizeDefault } from '../../engine/schema/normalize.ts';
import { SCHEMA_MODEL_VERSION } from '../../engine/schema/version.ts';
import type { CatalogRows, ColumnRow, ForeignKeyRow, StatisticsRow } from './mysql.catalog.ts';
import type { MysqlObjectRows } from './mysql.catalog-objects.ts';
import { buildMysqlObjects, unqualified } from './mysql.model-objects.ts';
import { partitionClause } from './mysql.partitions.ts';

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface ParsedExtra {
  autoIncrement: boolean;
  /** MySQL 8: the default is an expression. */
  defaultGenerated: boolean;
  onUpdate: string | null;
  generated: 'virtual' | 'stored' | null;
}

/** The EXTRA column: `auto_increment`, `DEFAULT_GENERATED on update CURRENT_TIMESTAMP`, `STORED GENERATED`… */
export function parseExtra(extra: string): ParsedExtra {
  const text = extra.trim();
  const onUpdate = /\bon update (.+)$/i.exec(text);
  return {
    autoIncrement: /\bauto_increment\b/i.test(text),
    defaultGenerated: /\bDEFAULT_GENERATED\b/i.test(text),
    onUpdate: onUpdate ? onUpdate[1]!.trim() : null,
    generated: /\bSTORED GENERATED\b/i.test(text)
      ? 'stored'
      : /\bVIRTUAL GENERATED\b/i.test(text)
        ? 'virtual'
        : null,
  };
}

/** `objects`: the rows of mysql.catalog-objects.ts; without them the model has no objects. */
export function buildMysqlModel(rows: CatalogRows, objects?: MysqlObjectRows): SchemaModel {
  const { flavor } = rows;
  const tables = new Map<string, TableModel>();
  const unmanaged: UnmanagedObject[] = [];
  for (const row of rows.tables) {
    if (row.table_type === 'BASE TABLE' || row.table_type === 'SYSTEM VERSIONED') {
      const table = emptyTable(row.table_name, row.table_comment || null);
      const options = tableOptions(row);
      if (options) table.table_options = options;
      tables.set(row.table_name, table);
    } else if (row.table_type === 'VIEW') {
      unmanaged.push({ kind: 'view', schema: null, name: row.table_name, table: null });
    } else if (row.table_type === 'SEQUENCE') {
      unmanaged.push({ kind: 'sequence', schema: null, name: row.table_name, table: null });
    }
  }

  // MariaDB's json columns: a column-level json_valid() check named after the column.
  const jsonColumns = new Set<string>();
  // Other column-level checks (`qty int CHECK (…)`) are part of their column's definition: MODIFY
  // COLUMN replaces them, DROP CONSTRAINT cannot reach them.
  const columnChecks = new Map<string, string>();
  const checks = new Map<string, CheckConstraintModel[]>();
  for (const row of rows.checks) {
    if (row.level === 'Column' && isMariaDbJsonCheck(row.constraint_name, row.check_clause)) {
      jsonColumns.add(JSON.stringify([row.table_name, row.constraint_name]));
      continue;
    }
    if (row.level === 'Column') {
      columnChecks.set(JSON.stringify([row.table_name, row.constraint_name]), row.check_clause);
      continue;
    }
    checks.set(row.table_name, [
      ...(checks.get(row.table_name) ?? []),
      { name: row.constraint_name, expression: row.check_clause },
    ]);
  }
  const viewNames = new Set(
    rows.tables.filter((row) => row.table_type === 'VIEW').map((row) => row.table_name),
  );
  const viewColumns = new Map<string, { name: string; type: string }[]>();
  for (const row of rows.columns) {
    if (viewNames.has(row.table_name)) {
      const list = viewColumns.get(row.table_name) ?? [];
      list.push({ name: row.column_name, type: canonicalType(row.column_type, flavor) });
      viewColumns.set(row.table_name, list);
      continue;
    }
    const isJson =
      flavor === 'mariadb' &&
      row.data_type === 'longtext' &&
      jsonColumns.has(JSON.stringify([row.table_name, row.column_name]));
    const check = columnChecks.get(JSON.stringify([row.table_name, row.column_name]));
    tables.get(row.table_name)?.columns.push({ ...column(row, flavor, isJson), ...(check ? { check } : {}) });
  }
  for (const [name, list] of checks) {
    const table = tables.get(name);
    if (table) table.check_constraints = list;
  }

  for (const [key, parts] of groupBy(rows.statistics, (row) =>
    JSON.stringify([row.table_name, row.index_name]),
  )) {
    const [tableName, indexName] = JSON.parse(key) as [string, string];
    const table = tables.get(tableName);
    if (!table) continue;
    const columns = parts.sort((a, b) => Number(a.seq_in_index) - Number(b.seq_in_index)).map(keyPart);
    if (indexName === 'PRIMARY') {
      table.primary_key = { name: 'PRIMARY', columns, deferrable: false, initially_deferred: false };
    } else {
      table.indexes.push(index(indexName, parts[0]!, columns));
    }
  }

  for (const [, parts] of groupBy(rows.foreignKeys, (row) =>
    JSON.stringify([row.table_name, row.constraint_name]),
  )) {
    parts.sort((a, b) => Number(a.ordinal_position) - Number(b.ordinal_position));
    const first = parts[0]!;
    tables.get(first.table_name)?.foreign_keys.push(foreignKey(first, parts));
  }

  for (const row of rows.unmanaged) {
    unmanaged.push({ kind: row.kind, schema: null, name: row.name, table: row.table_name });
  }

  if (rows.partitions)
    for (const [name, parts] of groupBy(rows.partitions, (row) => row.table_name)) {
      const table = tables.get(name);
      const clause = partitionClause(parts);
      if (table && clause) table.partitioning = { key: clause, parent: null, bound: null };
    }

  const tableList = [...tables.values()].sort((a, b) => byText(a.name, b.name));
  for (const table of tableList) sortTable(table);
  const objectFields = objects
    ? {
        model_version: SCHEMA_MODEL_VERSION,
        ...buildMysqlObjects(objects, [...tables.keys()], viewColumns),
      }
    : {};
  const defaultCollation = rows.tables.find((row) => row.default_collation)?.default_collation;
  return {
    ...objectFields,
    ...(objects && defaultCollation ? { default_collation: defaultCollation } : {}),
    dialect: 'mysql',
    flavor,
    server_version: rows.serverVersion,
    tables: tableList,
    enums: [],
    sequences: [],
    unmanaged: unmanaged.sort(
      (a, b) => byText(a.kind, b.kind) || byText(a.name, b.name) || byText(a.table ?? '', b.table ?? ''),
    ),
  };
}

/** Options that differ from the database's defaults, or null (rows of an older catalog query: null). */
function tableOptions(row: CatalogRows['tables'][number]): TableModel['table_options'] {
  if (!row.engine || !row.table_collation) return null;
  const rowFormat = /\brow_format=(\w+)/i.exec(row.create_options ?? '')?.[1]?.toUpperCase() ?? null;
  const versioned = row.table_type === 'SYSTEM VERSIONED';
  if (
    row.engine === 'InnoDB' &&
    row.table_collation === row.default_collation &&
    rowFormat === null &&
    !versioned
  )
    return null;
  return {
    engine: row.engine,
    collation: row.table_collation,
    row_format: rowFormat,
    ...(versioned ? { system_versioning: true } : {}),
  };
}

function emptyTable(name: string, comment: string | null): TableModel {
  return {
    schema: null,
    name,
    comment,
    columns: [],
    primary_key: null,
    unique_constraints: [],
    check_constraints: [],
    exclusion_constraints: [],
    foreign_keys: [],
    indexes: [],
  };
}

function column(row: ColumnRow, flavor: CatalogRows['flavor'], isJson: boolean): ColumnModel {
  const extra = parseExtra(row.extra ?? '');
  const type = canonicalType(row.column_type, flavor, { json: isJson });
  const ownName = (text: string | null) =>
    text === null || row.current_schema === undefined ? text : unqualified(text, row.current_schema);
  const generated = extra.generated !== null && ownName(row.generation_expression);
  const raw = generated ? null : ownName(row.column_default);
  const context = { flavor, type, expression: extra.defaultGenerated };
  return {
    name: row.column_name,
    ordinal_position: Number(row.ordinal_position),
    type,
    nullable: row.is_nullable === 'YES',
    default: raw,
    default_normalized: normalizeDefault(raw, context),
    identity: null,
    auto_increment: extra.autoIncrement,
    generated: generated ? { expression: generated, stored: extra.generated === 'stored' } : null,
    on_update:
      extra.onUpdate === null ? null : normalizeDefault(extra.onUpdate, { ...context, expression: true }),
    collation: row.collation_name,
    comment: row.column_comment || null,
    ...(/\bINVISIBLE\b/i.test(row.extra ?? '') ? { invisible: true } : {}),
  };
}

/** `name`, `name(10)` for a prefix, `(expression)` for a MySQL 8 functional part; ` DESC` when descending. */
function keyPart(row: StatisticsRow): string {
  const base = row.column_name === null ? `(${row.expression ?? ''})` : row.column_name;
  const prefix = row.sub_part === null ? '' : `(${row.sub_part})`;
  return `${base}${prefix}${row.collation === 'D' ? ' DESC' : ''}`;
}

function index(name: string, first: StatisticsRow, columns: string[]): IndexModel {
  return {
    name,
    columns,
    include: [],
    unique: Number(first.non_unique) === 0,
    method: first.index_type.toLowerCase(),
    predicate: null,
    ...(Number(first.ignored) === 1 ? { ignored: true } : {}),
  };
}

const ACTIONS: Record<string, ForeignKeyAction> = {
  'NO ACTION': 'no action',
  RESTRICT: 'restrict',
  CASCADE: 'cascade',
  'SET NULL': 'set null',
  'SET DEFAULT': 'set default',
};

function foreignKey(first: ForeignKeyRow, parts: ForeignKeyRow[]) {
  return {
    name: first.constraint_name,
    columns: parts.map((part) => part.column_name),
    // Same database: null, as the table's own schema is; another database is named.
    referenced_schema: first.referenced_schema === first.current_schema ? null : first.referenced_schema,
    referenced_table: first.referenced_table,
    referenced_columns: parts.map((part) => part.referenced_column),
    on_update: ACTIONS[first.update_rule] ?? 'no action',
    on_delete: ACTIONS[first.delete_rule] ?? 'no action',
    deferrable: false,
    initially_deferred: false,
  };
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

function sortTable(table: TableModel): void {
  const byName = (a: { name: string }, b: { name: string }) => byText(a.name, b.name);
  table.columns.sort((a, b) => a.ordinal_position - b.ordinal_position);
  table.check_constraints.sort(byName);
  table.foreign_keys.sort(byName);
  table.indexes.sort(byName);
}

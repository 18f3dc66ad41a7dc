// The information_schema queries of MySQL/MariaDB introspection: one set-based query per kind of
// object for the whole database (the connection's), never one per table. Columns are aliased in
// lower case because MySQL 8 returns information_schema names in upper case and MariaDB as written.
// Where MySQL 8 and MariaDB differ, the query depends on the flavour.
import type { Flavor } from '../../engine/schema/model.ts';

export const TABLES_SQL = `
  select t.TABLE_NAME as table_name, t.TABLE_TYPE as table_type, t.TABLE_COMMENT as table_comment,
    t.ENGINE as engine, t.TABLE_COLLATION as table_collation, t.CREATE_OPTIONS as create_options,
    s.DEFAULT_COLLATION_NAME as default_collation
  from information_schema.TABLES t
  join information_schema.SCHEMATA s on s.SCHEMA_NAME = t.TABLE_SCHEMA
  where t.TABLE_SCHEMA = database()`;

// Partitions of partitioned tables (not subpartitions), in order.
export const PARTITIONS_SQL = `
  select TABLE_NAME as table_name, PARTITION_NAME as name, PARTITION_METHOD as method,
    PARTITION_EXPRESSION as expression, PARTITION_DESCRIPTION as description,
    PARTITION_ORDINAL_POSITION as position
  from information_schema.PARTITIONS
  where TABLE_SCHEMA = database() and PARTITION_NAME is not null
  order by TABLE_NAME, PARTITION_ORDINAL_POSITION, SUBPARTITION_ORDINAL_POSITION`;

export interface PartitionRow {
  table_name: string;
  name: string;
  method: string;
  expression: string | null;
  description: string | null;
  position: number;
}

export interface TableRow {
  table_name: string;
  /** BASE TABLE, VIEW, SYSTEM VERSIONED (MariaDB), SEQUENCE (MariaDB), TEMPORARY. */
  table_type: string;
  table_comment: string | null;
  engine?: string | null;
  table_collation?: string | null;
  create_options?: string | null;
  default_collation?: string | null;
}

export const COLUMNS_SQL = `
  select TABLE_NAME as table_name, COLUMN_NAME as column_name, ORDINAL_POSITION as ordinal_position,
    COLUMN_DEFAULT as column_default, IS_NULLABLE as is_nullable, DATA_TYPE as data_type,
    COLUMN_TYPE as column_type, COLLATION_NAME as collation_name, EXTRA as extra,
    COLUMN_COMMENT as column_comment, GENERATION_EXPRESSION as generation_expression,
    database() as current_schema
  from information_schema.COLUMNS
  where TABLE_SCHEMA = database()
  order by TABLE_NAME, ORDINAL_POSITION`;

export interface ColumnRow {
  table_name: string;
  column_name: string;
  ordinal_position: number;
  column_default: string | null;
  is_nullable: 'YES' | 'NO';
  data_type: string;
  column_type: string;
  collation_name: string | null;
  extra: string;
  column_comment: string | null;
  generation_expression: string | null;
  /**
   * The database read. MariaDB writes a sequence in a default with it (`nextval(`shop`.`seq`)`),
   * which the model leaves out: another database's copy of the schema uses its own sequence.
   */
  current_schema?: string;
}

/** MySQL 8 lists functional key parts in EXPRESSION; MariaDB has no such column. */
export function statisticsSql(flavor: Flavor): string {
  const expression = flavor === 'mysql' ? 'EXPRESSION' : 'null';
  // MySQL 8 marks an index the optimizer leaves alone IS_VISIBLE = 'NO', MariaDB 10.6+ IGNORED = 'YES'.
  const ignored = flavor === 'mysql' ? "IS_VISIBLE = 'NO'" : "IGNORED = 'YES'";
  return `
  select TABLE_NAME as table_name, INDEX_NAME as index_name, NON_UNIQUE as non_unique,
    SEQ_IN_INDEX as seq_in_index, COLUMN_NAME as column_name, SUB_PART as sub_part,
    COLLATION as collation, INDEX_TYPE as index_type, ${expression} as expression,
    ${ignored} as ignored
  from information_schema.STATISTICS
  where TABLE_SCHEMA = database()
  order by TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`;
}

export interface StatisticsRow {
  table_name: string;
  index_name: string;
  non_unique: number | string;
  seq_in_index: number;
  column_name: string | null;
  sub_part: number | null;
  /** A (ascending), D (descending), null (not sorted: FULLTEXT, HASH). */
  collation: string | null;
  index_type: string;
  expression: string | null;
  /** 1 when the optimizer leaves the index alone (IGNORED, INVISIBLE). */
  ignored?: number | string;
}

export const FOREIGN_KEYS_SQL = `
  select k.TABLE_NAME as table_name, k.CONSTRAINT_NAME as constraint_name, k.COLUMN_NAME as column_name,
    k.ORDINAL_POSITION as ordinal_position, k.REFERENCED_TABLE_SCHEMA as referenced_schema,
    k.REFERENCED_TABLE_NAME as referenced_table, k.REFERENCED_COLUMN_NAME as referenced_column,
    r.UPDATE_RULE as update_rule, r.DELETE_RULE as delete_rule, database() as current_schema
  from information_schema.KEY_COLUMN_USAGE k
  join information_schema.REFERENTIAL_CONSTRAINTS r
    on r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA and r.TABLE_NAME = k.TABLE_NAME
    and r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
  where k.TABLE_SCHEMA = database() and k.REFERENCED_TABLE_NAME is not null
  order by k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`;

export interface ForeignKeyRow {
  table_name: string;
  constraint_name: string;
  column_name: string;
  ordinal_position: number;
  referenced_schema: string;
  referenced_table: string;
  referenced_column: string;
  update_rule: string;
  delete_rule: string;
  current_schema: string;
}

/**
 * MariaDB's CHECK_CONSTRAINTS names the table and the level (a column-level check is named after
 * its column, and `json` columns get one); MySQL 8's needs TABLE_CONSTRAINTS for the table.
 */
export function checksSql(flavor: Flavor): string {
  if (flavor === 'mariadb') {
    return `
  select TABLE_NAME as table_name, CONSTRAINT_NAME as constraint_name, CHECK_CLAUSE as check_clause,
    LEVEL as level
  from information_schema.CHECK_CONSTRAINTS
  where CONSTRAINT_SCHEMA = database()`;
  }
  return `
  select tc.TABLE_NAME as table_name, cc.CONSTRAINT_NAME as constraint_name,
    cc.CHECK_CLAUSE as check_clause, 'Table' as level
  from information_schema.TABLE_CONSTRAINTS tc
  join information_schema.CHECK_CONSTRAINTS cc
    on cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA and cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
  where tc.TABLE_SCHEMA = database() and tc.CONSTRAINT_TYPE = 'CHECK'`;
}

export interface CheckRow {
  table_name: string;
  constraint_name: string;
  check_clause: string;
  level: 'Column' | 'Table';
}

export const UNMANAGED_SQL = `
  select lower(ROUTINE_TYPE) as kind, ROUTINE_NAME as name, null as table_name
  from information_schema.ROUTINES where ROUTINE_SCHEMA = database()
  union all
  select 'trigger', TRIGGER_NAME, EVENT_OBJECT_TABLE
  from information_schema.TRIGGERS where TRIGGER_SCHEMA = database()
  union all
  select 'event', EVENT_NAME, null
  from information_schema.EVENTS where EVENT_SCHEMA = database()`;

export interface UnmanagedRow {
  kind: 'function' | 'procedure' | 'trigger' | 'event';
  name: string;
  table_name: string | null;
}

export interface CatalogRows {
  flavor: Flavor;
  serverVersion: string;
  tables: TableRow[];
  columns: ColumnRow[];
  statistics: StatisticsRow[];
  foreignKeys: ForeignKeyRow[];
  checks: CheckRow[];
  unmanaged: UnmanagedRow[];
  partitions?: PartitionRow[];
}

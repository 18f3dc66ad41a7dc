// The neutral schema model: what introspection of a PostgreSQL or MySQL/MariaDB database produces,
// what snapshots store as `schema_json`, and what the diff compares. Plain JSON-serialisable data
// with snake_case fields, because the API returns it as is.
//
// Scope (what migrations and drift manage): tables, columns, primary keys, unique, check and
// exclusion constraints, foreign keys, indexes, enums and sequences (model version 3: also the
// ones no column uses), and the
// objects of objects.ts (schemas, views, materialized views, functions, procedures, triggers,
// extensions). `unmanaged` stays the by-name index of every object that is not a table (readers
// that only need names, such as patches looking for triggers, use it); the kinds the engine does
// not manage (rules, policies, domains, other types…) are only there: reported, never altered.
//
// Fields added after the first model version are optional, so that a snapshot stored by an older
// version still reads as a model (see version.ts for what the version number means).

import type { IndexModel } from './index-model.ts';
import type { SchemaObjectFields } from './objects.ts';

export type { IndexModel };

export type DialectName = 'postgresql' | 'mysql';

/** The server family, when it matters for interpreting catalog output (MariaDB vs MySQL 8). */
export type Flavor = 'postgresql' | 'mysql' | 'mariadb';

export interface SchemaModel extends SchemaObjectFields {
  /** The version of the model that took it (version.ts); absent before version 2. */
  model_version?: number;
  /** MySQL/MariaDB: the database's default collation (recorded, not compared). */
  default_collation?: string;
  dialect: DialectName;
  flavor: Flavor;
  /** As the server reports it; recorded, not compared (an upgrade is not drift). */
  server_version: string;
  /** Sorted by schema, then name. */
  tables: TableModel[];
  /** PostgreSQL enum types, used by a column or not (MySQL enums are column types). */
  enums: EnumModel[];
  /** PostgreSQL sequences, owned by or used by a column or free-standing (identity sequences excluded). */
  sequences: SequenceModel[];
  unmanaged: UnmanagedObject[];
}

export interface TableModel {
  /** PostgreSQL schema; null on MySQL, where the connection's database is the only one. */
  schema: string | null;
  name: string;
  comment: string | null;
  /** In ordinal order; the order is recorded but not compared. */
  columns: ColumnModel[];
  primary_key: PrimaryKeyModel | null;
  unique_constraints: UniqueConstraintModel[];
  check_constraints: CheckConstraintModel[];
  /** PostgreSQL EXCLUDE constraints. */
  exclusion_constraints: ExclusionConstraintModel[];
  foreign_keys: ForeignKeyModel[];
  /**
   * Indexes that do not back a primary key, unique or exclusion constraint (those belong to the
   * constraint). On MySQL, UNIQUE KEYs are indexes with `unique: true`.
   */
  indexes: IndexModel[];
  /** PostgreSQL declarative partitioning of this table, when it is partitioned or a partition. */
  partitioning?: PartitioningModel | null;
  /** PostgreSQL parents this table inherits from (plain inheritance, not partitions), in order. */
  inherits?: TableRefModel[];
  /**
   * MySQL/MariaDB options that differ from the database's defaults (InnoDB, the database's
   * collation, the default row format); absent when none does.
   */
  table_options?: TableOptions | null;
  /** PostgreSQL storage: set only when one differs from the default (older models lack it). */
  table_storage?: TableStorage | null;
  /** PostgreSQL row-level security, set when enabled or forced. */
  row_security?: { enabled: boolean; forced: boolean } | null;
  /** PostgreSQL row-level security policies (present when the model knows them). */
  policies?: PolicyModel[];
  /** PostgreSQL checks, column defaults and indexes that call a user function (recorded, not compared). */
  routine_uses?: RoutineUse[];
}

export interface RoutineUse {
  kind: 'check' | 'default' | 'index';
  /** The check's or index's name, the column's for a default. */
  name: string;
  /** `schema.name(argument types)`, as a routine's objectKey. */
  routine: string;
}

export interface PolicyModel {
  name: string;
  /** ALL, SELECT, INSERT, UPDATE or DELETE. */
  command: string;
  permissive: boolean;
  /** Role names, `public` for every role; sorted. */
  roles: string[];
  /** USING and WITH CHECK as the server prints them. */
  using: string | null;
  check: string | null;
}

export interface TableRefModel {
  schema: string | null;
  name: string;
}

export interface TableStorage {
  /** Storage parameters as the catalog stores them (`fillfactor=80`), in its order (compared sorted). */
  parameters: string[];
  unlogged: boolean;
  /** `default`, `full`, `nothing`, or `index <name>` (REPLICA IDENTITY USING INDEX). */
  replica_identity: string;
  /** The index CLUSTER uses (ALTER TABLE … CLUSTER ON); absent when none is marked. */
  cluster_on?: string;
}

export interface TableOptions {
  engine: string;
  collation: string;
  /** An explicit ROW_FORMAT, upper case, or null. */
  row_format: string | null;
  /**
   * MariaDB `WITH SYSTEM VERSIONING` (history of every row kept by the server, implicit period
   * columns); absent when the table is not versioned.
   */
  system_versioning?: boolean;
}

export interface PartitioningModel {
  /**
   * PostgreSQL: `RANGE (created_at)`, as pg_get_partkeydef prints it; null for a partition that is
   * not partitioned. MySQL: the whole clause with its partitions, `RANGE (year(`d`)) (PARTITION …)`.
   */
  key: string | null;
  /** The parent of a partition and its bound (`FOR VALUES FROM (…) TO (…)`, `DEFAULT`). */
  parent: TableRefModel | null;
  bound: string | null;
}

export type IdentityKind = 'always' | 'by_default';

export interface GeneratedColumn {
  expression: string;
  /** STORED (true) or VIRTUAL (false; MySQL/MariaDB only). */
  stored: boolean;
}

export interface ColumnModel {
  name: string;
  /** 1-based position as the catalog reports it (with gaps after dropped columns on PostgreSQL). */
  ordinal_position: number;
  /** Canonical type name: PostgreSQL `format_type()`; MySQL COLUMN_TYPE without display widths. */
  type: string;
  nullable: boolean;
  /** The default as the catalog returns it (recorded, not compared). */
  default: string | null;
  /** The default after normalisation (compared). */
  default_normalized: string | null;
  /** PostgreSQL identity column. */
  identity: IdentityKind | null;
  /** MySQL AUTO_INCREMENT. */
  auto_increment: boolean;
  generated: GeneratedColumn | null;
  /** MySQL `ON UPDATE` expression (normalised), e.g. `current_timestamp`. */
  on_update: string | null;
  /**
   * PostgreSQL: only a collation that differs from the type's default; MySQL: the column's
   * collation (every string column has one).
   */
  collation: string | null;
  comment: string | null;
  /** The options of an identity column's sequence, when it has one. */
  identity_options?: SequenceOptions | null;
  /** Inherited from a parent (partition or inheritance child) and not declared locally. */
  inherited?: boolean;
  /** MySQL/MariaDB INVISIBLE: left out of SELECT *. */
  invisible?: boolean;
  /** MariaDB column-level CHECK (part of the column's definition, named after it). */
  check?: string;
  /** PostgreSQL storage (`plain`, `external`, `extended`, `main`) where it is not the type's own. */
  storage?: string;
  /** PostgreSQL compression method (`pglz`, `lz4`) where one is set on the column. */
  compression?: string;
}

/** Sequence parameters, numbers as decimal strings (bigint does not fit a JSON number). */
export interface SequenceOptions {
  data_type: string;
  start: string;
  increment: string;
  min_value: string;
  max_value: string;
  cache: string;
  cycle: boolean;
}

export interface PrimaryKeyModel {
  name: string;
  columns: string[];
  deferrable: boolean;
  initially_deferred: boolean;
  /** COMMENT ON it (PostgreSQL); absent when none. */
  comment?: string | null;
}

export interface UniqueConstraintModel {
  name: string;
  columns: string[];
  deferrable: boolean;
  initially_deferred: boolean;
  /** PostgreSQL NULLS NOT DISTINCT (15+); absent when nulls are distinct. */
  nulls_not_distinct?: boolean;
  /** Storage parameters of the index behind it (PostgreSQL); absent when none. */
  options?: string[];
  /** COMMENT ON it (PostgreSQL); absent when none. */
  comment?: string | null;
}

export interface CheckConstraintModel {
  name: string;
  /** The boolean expression as the server prints it. */
  expression: string;
  /** Added NOT VALID and not validated since (PostgreSQL). */
  not_valid?: boolean;
  /** NO INHERIT: not passed on to children (PostgreSQL). */
  no_inherit?: boolean;
  /** COMMENT ON it (PostgreSQL); absent when none. */
  comment?: string | null;
}

export interface ExclusionConstraintModel {
  name: string;
  /** `pg_get_constraintdef()`, e.g. `EXCLUDE USING gist (c WITH &&)`. */
  definition: string;
  deferrable: boolean;
  initially_deferred: boolean;
  /** COMMENT ON it (PostgreSQL); absent when none. */
  comment?: string | null;
}

export type ForeignKeyAction = 'no action' | 'restrict' | 'cascade' | 'set null' | 'set default';

export interface ForeignKeyModel {
  name: string;
  columns: string[];
  /** Null on MySQL when the referenced table is in the same database. */
  referenced_schema: string | null;
  referenced_table: string;
  referenced_columns: string[];
  on_update: ForeignKeyAction;
  on_delete: ForeignKeyAction;
  deferrable: boolean;
  initially_deferred: boolean;
  /** Added NOT VALID and not validated since (PostgreSQL). */
  not_valid?: boolean;
  /** MATCH FULL (PostgreSQL; absent for the default MATCH SIMPLE). */
  match_full?: boolean;
  /** COMMENT ON it (PostgreSQL); absent when none. */
  comment?: string | null;
}

export interface EnumModel {
  schema: string;
  name: string;
  values: string[];
  /** The columns of this type (where changes are reported; not compared). */
  used_by: ColumnRef[];
  /** COMMENT ON it (PostgreSQL); absent when none. */
  comment?: string | null;
}

export interface SequenceModel {
  schema: string;
  name: string;
  data_type: string;
  /** Numbers as decimal strings: bigint does not fit a JSON number. */
  start: string;
  increment: string;
  min_value: string;
  max_value: string;
  cache: string;
  cycle: boolean;
  /** The column that owns it (serial, OWNED BY), or null. */
  owned_by: ColumnRef | null;
  /** The owner and the columns whose default calls it (where changes are reported; not compared). */
  used_by: ColumnRef[];
  /** COMMENT ON it (PostgreSQL); absent when none. */
  comment?: string | null;
}

export type UnmanagedKind =
  | 'view'
  | 'materialized_view'
  | 'foreign_table'
  | 'function'
  | 'procedure'
  | 'aggregate'
  | 'trigger'
  | 'rule'
  | 'policy'
  | 'event'
  | 'extension'
  | 'domain'
  | 'type'
  | 'enum'
  | 'sequence'
  /** PostgreSQL extended statistics (CREATE STATISTICS): listed, not managed. */
  | 'statistics';

export interface UnmanagedObject {
  kind: UnmanagedKind;
  /** PostgreSQL schema; null on MySQL and for objects outside schemas (extensions). */
  schema: string | null;
  /** Functions carry their argument types: `film_in_stock(integer, integer)`. */
  name: string;
  /** The table of a trigger, rule, policy or extended statistics object. */
  table: string | null;
}

export interface ColumnRef {
  schema: string | null;
  table: string;
  column: string;
}

/** `schema.name` on PostgreSQL, `name` on MySQL: how tables are named in diffs and messages. */
export function tableKey(table: { schema: string | null; name: string }): string {
  return table.schema === null ? table.name : `${table.schema}.${table.name}`;
}

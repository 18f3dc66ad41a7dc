// The TargetDialect interface: what the rest of the service may do with a target database, whatever
// its engine. Modules use dialects only through it (docs/architecture.md), never through `pg` or `mysql2`, and
// never branch on a dialect's name: where the engines differ, the dialect says how (a method that
// writes the SQL) or whether (a capability), as Kysely's adapters do.
// Implementations: ./postgres (PostgreSQL) and ./mysql (MySQL 8, MariaDB 10.6+).
//
// Three layers, each where a later addition lands: SqlWriter is pure (quoting, placeholders, the
// statements whose grammar differs, capabilities), TargetDialect connects, TargetHandle runs work on
// an open pool. Session settings are options of that work (TransactionOptions, ApplyOptions: limits
// per statement, lock waits), which each dialect sets in its own variables and scope. Row streams
// in and out (COPY, LOAD DATA LOCAL INFILE) belong on the handle, as `readRows`/`writeRows` beside
// `transaction` (async iterables, back-pressure end to end), with a capability here saying how the
// engine loads (a copy protocol, a local file stream) and its SqlWriter naming columns as it does.

import type { FilterReader } from '../engine/bridge/filter-check.ts';
import type { CreatedTableRules } from '../engine/bridge/translate-table.ts';
import type { DdlRenderer, ExecutableStatement } from '../engine/migration/migration.ts';
import type { TableRef } from '../engine/migration/operations.ts';
import type { SqlParser } from '../engine/migration/parsed.ts';
import type { RowBatch } from '../engine/rows/copy-text.ts';
import type { ValueKind } from '../engine/rows/value-kind.ts';
import type { ObjectFilterConfig } from '../engine/schema/filter.ts';
import type {
  DialectName,
  Flavor,
  ForeignKeyModel,
  SchemaModel,
  TableModel,
} from '../engine/schema/model.ts';
import type { TargetErrorCause } from './errors.ts';
import type { ApplyOptions, ApplyResult, PausedTriggers, TableStats } from './execution.ts';

export type SslMode = 'disable' | 'require' | 'verify-full';

export interface TargetConfig {
  /** Where the socket goes: a host name or an IP address, used as given. */
  host: string;
  /**
   * The host name the user gave when `host` is the address it was resolved (and vetted) to: TLS
   * sends it as SNI and, with `verify-full`, checks the certificate against it. Absent when `host`
   * is what the user gave.
   */
  server_name?: string;
  port: number;
  database: string;
  username: string;
  password: string;
  /** `require` encrypts without checking the certificate; `verify-full` checks it and the host name. */
  ssl_mode: SslMode;
  /** PEM CA certificate(s) for `verify-full`; the system's trust store when absent. */
  ca_cert?: string;
  connect_timeout_ms: number;
  /** Server-side limit for each statement (PostgreSQL statement_timeout, MariaDB max_statement_time, MySQL max_execution_time). */
  statement_timeout_ms: number;
  /** Connections the handle may hold at once (default 2). */
  pool_size?: number;
}

export interface TestResult {
  ok: boolean;
  latency_ms: number;
  server_version: string | null;
  error: { cause: TargetErrorCause; message: string } | null;
}

export interface IntrospectOptions {
  /** Shadow objects and schemas to leave out; DEFAULT_OBJECT_FILTER when absent. */
  filter?: ObjectFilterConfig;
}

/** One statement's outcome inside a TargetHandle.transaction. */
export interface TargetQueryResult {
  /** The rows a SELECT (or RETURNING) produced; empty for DML without them. */
  rows: Record<string, unknown>[];
  /**
   * Rows an UPDATE, DELETE or INSERT matched or inserted (MySQL: found, not only changed); for a
   * statement that answers rows (SELECT, RETURNING), how many it answered, on every engine.
   */
  affectedRows: number;
}

/** The connection a TargetHandle.transaction lends to its work. */
export interface TargetTransaction {
  /** Runs one statement; its parameters are marked by the dialect's placeholder(). Throws a TargetError. */
  query(sql: string, params?: unknown[]): Promise<TargetQueryResult>;
}

export interface TransactionOptions {
  /** Commit when the work resolves; otherwise (and always when the work throws) roll back. */
  commit: boolean;
  /** Limit for each statement; the connection's statement_timeout_ms when absent. */
  statementTimeoutMs?: number;
  /**
   * A read-only transaction: the server itself refuses any write in it, to any table (a patch's
   * dry-run, whose reads call expressions and routines written by users).
   */
  readOnly?: boolean;
}

/** An open, bounded pool on one target database. Close it when done. */
export interface TargetHandle {
  readonly dialect: DialectName;
  /**
   * The dialect this handle speaks: its SQL writer, capabilities, row format, DDL renderer and
   * parser. Code that holds a handle reaches the dialect here, never by looking its name up.
   */
  readonly sql: MigrationDialect;
  readonly flavor: Flavor;
  readonly serverVersion: string;
  /** The schema in the neutral model, read in one consistent snapshot where the engine allows it. */
  introspect(options?: IntrospectOptions): Promise<SchemaModel>;
  /**
   * Row estimates, sizes and whether each table has a row, for the given tables (all when omitted).
   * What lint calls "populated" and "large".
   */
  tableStats(tables?: TableRef[]): Promise<TableStats[]>;
  /**
   * Runs migration statements: PostgreSQL in one transaction (statements that cannot run in one
   * before or after it), MySQL one by one. A failing statement does not throw: the result tells
   * which took effect and classifies the error. It throws a TargetError only when it cannot work
   * at all (no connection). Without `statementTimeoutMs` the connection's statement_timeout_ms
   * applies.
   */
  apply(statements: ExecutableStatement[], options?: ApplyOptions): Promise<ApplyResult>;
  /**
   * Ends a server session left by a process that died (as ApplyOptions.beforeStatement named it)
   * and waits up to `timeoutMs` until the server is done with it: the statement it was running is
   * then committed or gone, never still changing the schema. Returns whether the session is gone
   * (also when it had ended before, or the server restarted since).
   */
  endSession(session: string, timeoutMs: number): Promise<boolean>;
  /**
   * Runs `work` on one connection inside one transaction (for DML: patches), then commits or rolls
   * back as `options.commit` says; a failing work is always rolled back and its error rethrown.
   */
  transaction<T>(work: (tx: TargetTransaction) => Promise<T>, options: TransactionOptions): Promise<T>;
  /**
   * A connection of its own for bulk row work (the row pipeline, see ./rows.ts): no statement limit,
   * times in UTC, and closed for good (never handed back to the pool) by `close`, so that what the
   * work set on it (foreign key checks off, an open transaction) never reaches another user.
   */
  rowSession(): Promise<RowSession>;
  close(): Promise<void>;
}

/** A table and the columns a row stream carries, in the order of the stream's fields. */
export interface RowStreamTable {
  /** PostgreSQL schema; null on MySQL. */
  schema: string | null;
  name: string;
  columns: string[];
}

export interface ReadRowsRequest extends RowStreamTable {
  /** The kind of each column (same order), which decides how its values are printed. */
  kinds: ValueKind[];
  /**
   * A boolean SQL condition over the table's columns, written back from its checked parse
   * (engine/bridge/filter-check.ts), never the text a request sent: it goes into the statement as it is.
   */
  where?: string;
}

export interface WriteRowsRequest extends RowStreamTable {
  /** The kind of each column in the target (same order), which decides any conversion on load. */
  kinds: ValueKind[];
  /** Columns the target generates itself that the stream writes anyway (PostgreSQL identity ALWAYS). */
  overridingSystemValue?: boolean;
  /**
   * The table was emptied (TRUNCATE) in the session's open transaction, so no other transaction can
   * see its rows before the commit: the engine may write them already visible to all (PostgreSQL
   * `COPY … FREEZE`, which spares the first reader of each row, such as a key validation, the
   * per-row visibility bookkeeping). Not for a partitioned table.
   */
  emptiedInTransaction?: boolean;
  /** The target's primary key columns: a row the load refuses is named by its key where the engine can say which it was. */
  keyColumns?: string[];
}

export interface WriteRowsResult {
  rows: number;
  /** How the rows went in: `copy` (PostgreSQL COPY), `load_data` (LOAD DATA LOCAL INFILE), `insert_batches` (the server refuses local files). */
  method: 'copy' | 'load_data' | 'insert_batches';
}

/** One connection doing bulk row work; every method throws a TargetError on failure. */
export interface RowSession extends TargetTransaction {
  /**
   * The rows of a table in the neutral format (engine/rows/copy-text.ts), as batches of whole rows.
   * Pulling is what reads: a consumer that stops pulling stops the server (back-pressure).
   */
  readRows(request: ReadRowsRequest): AsyncIterable<RowBatch>;
  /** Loads the batches into a table, pulling the next only when the server took the last. */
  writeRows(request: WriteRowsRequest, batches: AsyncIterable<RowBatch>): Promise<WriteRowsResult>;
  /** Ends the connection (an open transaction is rolled back by the server). */
  close(): Promise<void>;
}

/** How an engine's values map onto the row pipeline's neutral kinds (engine/rows/value-kind.ts). */
export interface RowFormat {
  /** The kind of a column of this engine's type (the model's canonical type name). */
  valueKind(type: string): ValueKind;
  /** Why a value of `kind` cannot be loaded into a column of `type` of this engine, or null when it can. */
  refusal(kind: ValueKind, type: string): string | null;
  /** The column type this engine gives a column whose values are of `kind` in the other engine's `type` (create_tables). */
  columnType(kind: ValueKind, type: string): string;
  /** How this engine keeps what the other engine's keys need, in a table a copy creates (create_tables). */
  readonly createdTables: CreatedTableRules;
  /** How this engine reads a bridge filter: its own parser, under its filter mode (filterModeSql). */
  readonly readFilter: FilterReader;
  /**
   * A query answering one row with the column `identity`: the server and database a connection
   * reaches, the same whatever address or account reached it (two connection records of one
   * database are one copy's source and target only by mistake).
   */
  readonly identitySql: string;
  /**
   * A query answering one row with the column `mode`: the session setting that decides how the
   * text of a bridge filter reads (MySQL's sql_mode: NO_BACKSLASH_ESCAPES, ANSI_QUOTES), so that
   * it is parsed and written back as the server reads it; null where the engine has none.
   */
  readonly filterModeSql: string | null;
  /** How the target's foreign keys stop checking during a load, and come back checked after it. */
  readonly foreignKeyLoad: ForeignKeyLoad;
  /**
   * A statement moving the sequence behind `column` (serial, identity) past the column's largest
   * value, or null where the engine does so by itself on every insert (MySQL AUTO_INCREMENT).
   */
  syncSequence(
    table: { schema: string | null; name: string },
    column: string,
  ): { sql: string; params: unknown[] } | null;
  /**
   * Statements creating `stage` (an unqualified quoted name) as a session-private, empty table shaped
   * like `table` (quoted), inside a transaction without committing it, gone when the session ends.
   */
  stageSql(stage: string, table: string): string[];
  /** Inserts the rows of `stage` into `table`, updating the row of the same `key` where there is one. */
  upsertSql(table: string, stage: string, columns: string[], key: string[]): string;
  /**
   * An expression answering a number in [0, 1) for each row, a hash of its key `columns` (quoted)
   * and `seed` (subset `percent`): the same body samples the same rows, so a run resumed after a
   * failure completes the sample the tables already copied belong to.
   */
  sampleSql(columns: string[], seed: string): string;
  /**
   * Where a subset's key tables live: `temporary`, session-private tables the server drops with the
   * session, even when the process dies (PostgreSQL); `own`, plain tables among this service's own
   * (SqlWriter.ownTable), because the engine cannot name a temporary table twice in one statement
   * (MySQL), dropped by the run and, after a killed run, by the next subset on that database:
   * `leftoversSql` answers the names (`name`, unquoted) of the key tables there.
   */
  readonly subsetKeyTables: { kind: 'temporary' } | { kind: 'own'; leftoversSql: string };
  /**
   * Rewriting every row of a table by emptying it and loading it again inside one transaction,
   * where the engine can do so keeping the table itself (null where emptying commits: MySQL).
   */
  readonly tableReload: TableReload | null;
}

/**
 * A table emptied and loaded again in the transaction that holds its write lock (PostgreSQL:
 * TRUNCATE is transactional and keeps the table's object, so its indexes, constraints, defaults,
 * grants, comments, policies, replica identity, owned sequences and the views on it stay as they
 * were). An in-place anonymization uses it instead of an UPDATE of every row (which writes a new
 * version of each row and of each index entry), where nothing tells the two apart: `blockersSql`
 * answers why not, one row per reason.
 */
export interface TableReload {
  /**
   * A query (parameters `[schema, name]`) answering one row per reason the table must not be
   * reloaded: `reason` (text), and for a foreign key of another table (or itself) referencing it,
   * `foreign_key` and `referencing` (its table as `schema.name`), so a caller that drops that key
   * first can discount it. No row: a reload leaves the table as an UPDATE of its rows would.
   */
  readonly blockersSql: string;
  /** Empties the table (quoted, qualified), and nothing else. */
  truncateSql(table: string): string;
  /** Loads every row of `stage` into `table` (both quoted), `columns` as given (identity ones too). */
  insertSql(table: string, stage: string, columns: string[]): string;
}

/**
 * `session`: the load's session turns checking off (`off`) and back on (`on`); nothing to restore
 * if the process dies, rows are checked by a query per key after the load (MySQL).
 * `readd`: each key is dropped inside the transaction that loads its table and added back there
 * NOT VALID (so a killed run leaves it in place, enforcing new rows), then validated after every
 * table is loaded (PostgreSQL).
 */
export type ForeignKeyLoad =
  | { kind: 'session'; off: string; on: string }
  | {
      kind: 'readd';
      /** `table` and `referenced` are quoted, qualified names. */
      drop(table: string, name: string): string;
      /** The statements that put the key back as it was (its comment too), not yet validated. */
      addNotValid(table: string, fk: ForeignKeyModel, referenced: string): string[];
      validate(table: string, name: string): string;
    };

/** A table in a statement, with the alias the rest of the statement calls it by. */
export interface AliasedTable {
  /** Quoted SQL naming the table. */
  table: string;
  alias: string;
}

/** Which statements take RETURNING on one flavour of the engine. */
export interface ReturningSupport {
  /** `INSERT … RETURNING`: PostgreSQL, MariaDB; not MySQL 8. */
  insert: boolean;
  /**
   * A data-changing statement with RETURNING inside WITH, feeding another statement (PostgreSQL):
   * the rows a statement changed reach a table in the same pass.
   */
  inWith: boolean;
}

/**
 * Row versions: every row carries the id of the transaction that last wrote it (PostgreSQL's
 * `xmin`), so a row written since a transaction is found without a copy of the row as it left it.
 */
export interface RowVersions {
  /** A query answering the current transaction's id as the column `version`. */
  readonly currentSql: string;
  /** SQL true when the row aliased `alias` was last written by transaction `version`; null when `version` is not one. */
  writtenBy(alias: string, version: string): string | null;
}

/**
 * Asking the server, after the connection that ran a transaction is gone, whether it committed: what
 * tells, after a kill -9 between COMMIT and its answer, what a run did.
 */
export interface TransactionOutcomes {
  /** Answers the open transaction's id as the text column `id` (it assigns one if need be). */
  readonly currentSql: string;
  /**
   * Answers the column `status` of the transaction whose id is the first parameter: `committed`,
   * `aborted`, `in progress`, or null when the server no longer knows it.
   */
  readonly statusSql: string;
}

/**
 * Tables whose rows lie in primary-key order (InnoDB's clustered index). A statement that reads a
 * whole table can then be cut into primary-key ranges, and the passes a patch makes over the rows
 * (before-image, the statement, after-image) read each range while its pages are still in memory,
 * where three whole-table passes read a table larger than the cache from disk three times.
 */
export interface KeyOrderedTables {
  /** SQL answering the plan of `statement`, one row per table it reads, its own table first. */
  planSql(statement: string): string;
  /** Whether the plan (planSql's rows) reads every row of the statement's table. */
  readsWholeTable(plan: Record<string, unknown>[]): boolean;
  /** The table reference `from` (quoted, with its alias) read in primary-key order. */
  inKeyOrder(from: string): string;
  /**
   * Stops the session's clock at the current time, so that every range of a statement sees the
   * NOW() one statement would; `clockRunsSql` starts it again.
   */
  readonly clockStoppedSql: string;
  readonly clockRunsSql: string;
}

/** Engine-wide facts a caller decides by, never by the dialect's name. */
export interface DialectCapabilities {
  /** DDL takes part in transactions (PostgreSQL); without, each DDL statement commits by itself (MySQL). */
  readonly transactionalDdl: boolean;
  /**
   * `x.table` names a schema of the connection's database (PostgreSQL); without, it names another
   * database of the same server (MySQL), outside what the connection was registered for.
   */
  readonly schemasInDatabase: boolean;
  /** Whether a table's triggers can be disabled inside a transaction (see SqlWriter.pauseTriggers). */
  readonly pausableTriggers: boolean;
  /** Row versions, or null when the engine has none (MySQL). */
  readonly rowVersions: RowVersions | null;
  /** Whether a past transaction committed, or null when the engine cannot tell (MySQL). */
  readonly transactionOutcomes: TransactionOutcomes | null;
  /**
   * A query answering `table_name` and `engine` of each table of the connection's database whose
   * storage engine keeps no transaction (information_schema.ENGINES `TRANSACTIONS = 'NO'`: MyISAM,
   * MEMORY, Aria, CSV, ARCHIVE…), whose changes neither a rollback nor a dry-run can undo; null
   * where every table is transactional (PostgreSQL).
   */
  readonly nonTransactionalTablesSql: string | null;
  /** Rows kept in primary-key order (MySQL's InnoDB), or null where a table is a heap (PostgreSQL). */
  readonly keyOrderedTables: KeyOrderedTables | null;
}

/** How this engine's SQL is written: pure (no connection), except pauseTriggers, which runs in `tx`. */
export interface SqlWriter {
  readonly capabilities: DialectCapabilities;
  /** An identifier quoted for this engine's SQL: always one name, never split on dots. */
  quoteIdent(name: string): string;
  /** The placeholder of a statement's `position`-th parameter, from 1: `$1` (PostgreSQL), `?` (MySQL). */
  placeholder(position: number): string;
  /** What RETURNING the server takes; it depends on the flavour (MariaDB has some, MySQL 8 none). */
  returning(flavor: Flavor): ReturningSupport;
  /**
   * A table of this service's own in the target (docs/architecture.md), quoted: PostgreSQL keeps them in the
   * schema `dbops_backup`, MySQL beside the data with the prefix `_dbops_bak_`.
   */
  ownTable(name: string): string;
  /** What must run once before an ownTable is created (PostgreSQL: its schema). */
  ownTablesSetup(): string[];
  /**
   * Statements creating `into` as an empty table with the columns of `from` (whose model is
   * `table`), indexed for joins on `key` at most: an index costs a write per copied row.
   */
  createEmptyCopy(into: string, from: string, table: TableModel, key: string[]): string[];
  /** SQL true when two expressions are equal or both null, for values of any type. */
  sameValue(left: string, right: string): string;
  /**
   * An UPDATE of `target` setting each of `columns` to the value in the joined `source` row, or to
   * the expression `values` gives for it (over both aliases).
   */
  updateFrom(
    target: AliasedTable,
    source: AliasedTable,
    on: string,
    columns: string[],
    values?: Readonly<Record<string, string>>,
  ): string;
  /** A DELETE of the rows of `target` that have a joined `source` row. */
  deleteJoined(target: AliasedTable, source: AliasedTable, on: string): string;
  /** `INSERT INTO table (columns) SELECT …` storing every value as given, identity columns included. */
  insertAsGiven(table: string, columns: string, select: string): string;
  /**
   * A statement refreshing the planner statistics of `table` inside a transaction, or null where
   * that cannot be done without committing it (MySQL's ANALYZE TABLE commits).
   */
  analyzeSql(table: string): string | null;
  /**
   * Disables the enabled user triggers of `table` (quoted) in `tx` until resumed, where the engine
   * can; `unsupported` where it cannot (capabilities.pausableTriggers).
   */
  pauseTriggers(tx: TargetTransaction, table: string): Promise<PausedTriggers>;
}

export interface TargetDialect extends SqlWriter {
  readonly name: DialectName;
  /** How rows of this engine cross the row pipeline. */
  readonly rows: RowFormat;
  /** Connects (one round trip to learn the version and flavour) or throws a TargetError. */
  open(config: TargetConfig): Promise<TargetHandle>;
  /** Connects, asks the version, disconnects. Never throws: failures are in `error`. */
  test(config: TargetConfig): Promise<TestResult>;
}

/**
 * A dialect that also renders migration DDL and parses SQL text of its engine (both pure: no
 * connection needed). The real dialects are these (`migrationDialects` in ./index.ts); plain
 * TargetDialect stays what connections, snapshots and patches need.
 */
export interface MigrationDialect extends TargetDialect, DdlRenderer, SqlParser {
  readonly name: DialectName;
}

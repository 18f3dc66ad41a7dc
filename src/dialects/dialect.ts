// The TargetDialect interface: what the rest of the service may do with a target database, whatever
// its engine. Modules use dialects only through it (DESIGN §2), never through `pg` or `mysql2`.
// Implementations: ./postgres (PostgreSQL) and ./mysql (MySQL 8, MariaDB 10.6+).
import type { DdlRenderer, ExecutableStatement } from '../engine/migration/migration.ts';
import type { TableRef } from '../engine/migration/operations.ts';
import type { SqlParser } from '../engine/migration/parsed.ts';
import type { ObjectFilterConfig } from '../engine/schema/filter.ts';
import type { DialectName, Flavor, SchemaModel } from '../engine/schema/model.ts';
import type { TargetErrorCause } from './errors.ts';
import type { ApplyOptions, ApplyResult, TableStats } from './execution.ts';

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
  /** Rows an UPDATE, DELETE or INSERT matched or inserted (MySQL: found, not only changed). */
  affectedRows: number;
}

/** The connection a TargetHandle.transaction lends to its work. */
export interface TargetTransaction {
  /** Runs one statement; parameters are `$1…` on PostgreSQL and `?` on MySQL. Throws a TargetError. */
  query(sql: string, params?: unknown[]): Promise<TargetQueryResult>;
}

export interface TransactionOptions {
  /** Commit when the work resolves; otherwise (and always when the work throws) roll back. */
  commit: boolean;
  /** Limit for each statement; the connection's statement_timeout_ms when absent. */
  statementTimeoutMs?: number;
}

/** An open, bounded pool on one target database. Close it when done. */
export interface TargetHandle {
  readonly dialect: DialectName;
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
   * Runs `work` on one connection inside one transaction (for DML: patches), then commits or rolls
   * back as `options.commit` says; a failing work is always rolled back and its error rethrown.
   */
  transaction<T>(work: (tx: TargetTransaction) => Promise<T>, options: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}

export interface TargetDialect {
  readonly name: DialectName;
  /** Connects (one round trip to learn the version and flavour) or throws a TargetError. */
  open(config: TargetConfig): Promise<TargetHandle>;
  /** Connects, asks the version, disconnects. Never throws: failures are in `error`. */
  test(config: TargetConfig): Promise<TestResult>;
  /** An identifier quoted for this engine's SQL. */
  quoteIdent(name: string): string;
}

/**
 * A dialect that also renders migration DDL and parses SQL text of its engine (both pure: no
 * connection needed). The real dialects are these (`migrationDialects` in ./index.ts); plain
 * TargetDialect stays what connections and snapshots need, so their test doubles need nothing more.
 */
export interface MigrationDialect extends TargetDialect, DdlRenderer, SqlParser {
  readonly name: DialectName;
}

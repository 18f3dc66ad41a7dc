// The TargetDialect interface: what the rest of the service may do with a target database, whatever
// its engine. Modules use dialects only through it (DESIGN §2), never through `pg` or `mysql2`.
// Implementations: ./postgres (PostgreSQL) and ./mysql (MySQL 8, MariaDB 10.6+).
import type { ObjectFilterConfig } from '../engine/schema/filter.ts';
import type { DialectName, Flavor, SchemaModel } from '../engine/schema/model.ts';
import type { TargetErrorCause } from './errors.ts';

export type SslMode = 'disable' | 'require' | 'verify-full';

export interface TargetConfig {
  host: string;
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

/** An open, bounded pool on one target database. Close it when done. */
export interface TargetHandle {
  readonly dialect: DialectName;
  readonly flavor: Flavor;
  readonly serverVersion: string;
  /** The schema in the neutral model, read in one consistent snapshot where the engine allows it. */
  introspect(options?: IntrospectOptions): Promise<SchemaModel>;
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

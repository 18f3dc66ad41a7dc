// Target database dialects (docs/architecture.md): connect, introspect and classify errors for PostgreSQL and
// MySQL/MariaDB behind one interface. Modules pick a dialect by the connection's `dialect` field.
import type { DialectName } from '../engine/schema/model.ts';
import type { MigrationDialect, TargetDialect } from './dialect.ts';
import { mysqlDialect } from './mysql/mysql.dialect.ts';
import { postgresDialect } from './postgres/postgres.dialect.ts';

export type {
  AliasedTable,
  DialectCapabilities,
  IntrospectOptions,
  MigrationDialect,
  ReturningSupport,
  RowVersions,
  SqlWriter,
  SslMode,
  TargetConfig,
  TargetDialect,
  TargetHandle,
  TargetTransaction,
  TestResult,
} from './dialect.ts';
export { TargetError, type TargetErrorCause } from './errors.ts';
export type {
  ApplyOptions,
  ApplyProgress,
  ApplyResult,
  PausedTriggers,
  StatementError,
  StatementErrorKind,
  TableStats,
} from './execution.ts';
export { maskSecret } from './secret-mask.ts';

export const dialects: Record<DialectName, TargetDialect> = {
  postgresql: postgresDialect,
  mysql: mysqlDialect,
};

/** The same dialects, with migration DDL rendering and SQL parsing. */
export const migrationDialects: Record<DialectName, MigrationDialect> = {
  postgresql: postgresDialect,
  mysql: mysqlDialect,
};

// Applying migration statements on MySQL/MariaDB, and the table statistics lint needs.
//
// Apply (docs/contract.md §8): statement by statement. DDL commits by itself on these engines (a CREATE TABLE
// survives a ROLLBACK), so a transaction would promise what the server does not keep: on failure the
// result says exactly which statements took effect and which did not, and nothing is rolled back.
// The connection is discarded afterwards, so no session setting outlives the apply.
import type mysql from 'mysql2/promise';
import type { Flavor } from '../../engine/schema/model.ts';
import type { TargetError } from '../errors.ts';
import type {
  ApplyOptions,
  ApplyResult,
  ExecutableStatement,
  StatementError,
  StatementErrorKind,
  TableRef,
  TableStats,
} from '../execution.ts';
import { mysqlSessionOf } from './mysql.sessions.ts';
import { mysqlSqlWriter } from './mysql.sql-writer.ts';

/** The error of ApplyOptions.beforeStatement, carried past the classification of target errors. */
class JournalError {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

const KIND_BY_ERRNO: Record<number, StatementErrorKind> = {
  1064: 'syntax', // ER_PARSE_ERROR
  1146: 'undefined_object', // ER_NO_SUCH_TABLE
  1054: 'undefined_object', // ER_BAD_FIELD_ERROR
  1091: 'undefined_object', // ER_CANT_DROP_FIELD_OR_KEY
  1176: 'undefined_object', // ER_KEY_DOES_NOT_EXITS
  1050: 'duplicate_object', // ER_TABLE_EXISTS_ERROR
  1060: 'duplicate_object', // ER_DUP_FIELDNAME
  1061: 'duplicate_object', // ER_DUP_KEYNAME
  1826: 'duplicate_object', // ER_FK_DUP_NAME
  3822: 'duplicate_object', // ER_CHECK_CONSTRAINT_DUP_NAME (MySQL 8)
  1553: 'dependent_objects', // ER_DROP_INDEX_FK: index needed by a foreign key
  1828: 'dependent_objects', // ER_FK_COLUMN_CANNOT_DROP
  1829: 'dependent_objects', // ER_FK_COLUMN_CANNOT_DROP_CHILD
  1832: 'dependent_objects', // ER_FK_COLUMN_CANNOT_CHANGE
  1833: 'dependent_objects', // ER_FK_COLUMN_CANNOT_CHANGE_CHILD
  3780: 'dependent_objects', // ER_FK_INCOMPATIBLE_COLUMNS (MySQL 8)
  1451: 'constraint_violation', // ER_ROW_IS_REFERENCED_2
  1452: 'constraint_violation', // ER_NO_REFERENCED_ROW_2
  1062: 'constraint_violation', // ER_DUP_ENTRY
  1048: 'constraint_violation', // ER_BAD_NULL_ERROR
  3819: 'constraint_violation', // ER_CHECK_CONSTRAINT_VIOLATED (MySQL 8)
  4025: 'constraint_violation', // ER_CONSTRAINT_FAILED (MariaDB)
  1265: 'invalid_data', // WARN_DATA_TRUNCATED
  1264: 'invalid_data', // ER_WARN_DATA_OUT_OF_RANGE
  1292: 'invalid_data', // ER_TRUNCATED_WRONG_VALUE
  1366: 'invalid_data', // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1406: 'invalid_data', // ER_DATA_TOO_LONG
  1205: 'lock_timeout', // ER_LOCK_WAIT_TIMEOUT (also metadata locks: lock_wait_timeout)
  1969: 'statement_timeout', // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
  3024: 'statement_timeout', // ER_QUERY_TIMEOUT (MySQL max_execution_time)
  1235: 'feature_not_supported', // ER_NOT_SUPPORTED_YET
  1142: 'permission_denied',
  1044: 'permission_denied',
  1227: 'permission_denied',
  2006: 'connection_lost',
  2013: 'connection_lost',
};

export function statementErrorKind(errno: number | undefined): StatementErrorKind {
  return errno === undefined ? 'other' : (KIND_BY_ERRNO[errno] ?? 'other');
}

export function statementError(raw: unknown, error: TargetError): StatementError {
  const errno = (raw as { errno?: unknown } | null)?.errno;
  return {
    cause: error.cause,
    kind: statementErrorKind(typeof errno === 'number' ? errno : undefined),
    code: error.code,
    message: error.message,
  };
}

export async function applyMysql(
  connection: mysql.PoolConnection,
  flavor: Flavor,
  statements: ExecutableStatement[],
  options: ApplyOptions,
  classify: (error: unknown) => TargetError,
): Promise<ApplyResult> {
  const result: ApplyResult = {
    applied: [],
    failed: null,
    not_applied: [],
    outside_transaction: [],
    rolled_back: [],
    cancelled: false,
  };
  const rest = (from: number) => statements.map((_, i) => i).slice(from);
  try {
    if (options.lockTimeoutMs !== undefined) {
      // Metadata locks (what DDL waits for) count in whole seconds, at least one.
      const seconds = Math.max(1, Math.ceil(options.lockTimeoutMs / 1000));
      await connection.query('SET SESSION lock_wait_timeout = ?', [seconds]);
      await connection.query('SET SESSION innodb_lock_wait_timeout = ?', [seconds]);
    }
    // MySQL 8's max_execution_time limits SELECTs only: DDL there runs unlimited.
    if (options.statementTimeoutMs !== undefined && flavor === 'mariadb')
      await connection.query('SET SESSION max_statement_time = ?', [options.statementTimeoutMs / 1000]);
    // MariaDB refuses any ALTER of a system-versioned table unless told what becomes of its history:
    // kept, as the table is changed.
    if (flavor === 'mariadb') await connection.query('SET SESSION system_versioning_alter_history = KEEP');
    const session = options.beforeStatement ? await mysqlSessionOf(connection) : '';
    for (const [index, statement] of statements.entries()) {
      if (options.signal?.aborted) {
        result.cancelled = true;
        result.not_applied = rest(index);
        return result;
      }
      if (options.beforeStatement)
        await options.beforeStatement({ index, session }).catch((error: unknown) => {
          throw new JournalError(error);
        });
      try {
        await connection.query(statement.sql);
      } catch (error) {
        result.failed = { index, error: statementError(error, classify(error)) };
        result.not_applied = rest(index + 1);
        return result;
      }
      result.applied.push(index);
      options.onProgress?.({ done: index + 1, total: statements.length, statement_index: index });
    }
    return result;
  } catch (error) {
    if (error instanceof JournalError) throw error.error;
    // Not a statement's failure (a session setting, the connection): the caller's to report.
    throw classify(error);
  } finally {
    connection.destroy();
  }
}

const quoteName = mysqlSqlWriter.quoteIdent;

interface StatsRow {
  name: string;
  rows: number | string | null;
  bytes: number | string | null;
}

/**
 * InnoDB's estimates from information_schema.TABLES (TABLE_ROWS, DATA_LENGTH + INDEX_LENGTH). They
 * can be 0 for a table filled since the last statistics update (MySQL 8 also caches them a day unless
 * information_schema_stats_expiry is 0): for those the table itself is asked whether it has a row.
 */
export async function mysqlTableStats(
  connection: mysql.PoolConnection,
  flavor: Flavor,
  tables?: TableRef[],
): Promise<TableStats[]> {
  if (flavor === 'mysql') await connection.query('SET SESSION information_schema_stats_expiry = 0');
  const [rows] = await connection.query(
    `select TABLE_NAME as name, TABLE_ROWS as \`rows\`, DATA_LENGTH + INDEX_LENGTH as bytes
     from information_schema.TABLES where TABLE_SCHEMA = database() and TABLE_TYPE = 'BASE TABLE'`,
  );
  const wanted = tables === undefined ? null : new Set(tables.map((t) => t.name));
  const stats: TableStats[] = (rows as StatsRow[])
    .filter((row) => wanted === null || wanted.has(row.name))
    .map((row) => {
      const estimate = row.rows === null ? null : Number(row.rows);
      return {
        schema: null,
        name: row.name,
        rows: estimate !== null && estimate > 0 ? estimate : null,
        bytes: row.bytes === null ? null : Number(row.bytes),
        populated: estimate !== null && estimate > 0,
      };
    });
  const unknown = stats.filter((s) => s.rows === null);
  for (let start = 0; start < unknown.length; start += 200) {
    const batch = unknown.slice(start, start + 200);
    const probes = batch.map((s, i) => `exists (select 1 from ${quoteName(s.name)}) as p${i}`);
    const [answer] = await connection.query(`select ${probes.join(', ')}`);
    const values = (answer as Record<string, number | string>[])[0] ?? {};
    batch.forEach((s, i) => {
      s.populated = Number(values[`p${i}`]) === 1;
      if (!s.populated) s.rows = 0;
    });
  }
  return stats;
}

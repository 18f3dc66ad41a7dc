// Classification of `mysql2` errors: server errors by errno (MySQL and MariaDB share the numbers
// below), socket and TLS failures by Node's code, and the driver's own failures by mysql2's code
// (PROTOCOL_CONNECTION_LOST, HANDSHAKE_NO_SSL_SUPPORT, …).
import {
  classifySocketCode,
  errorCode,
  errorMessage,
  TargetError,
  type TargetErrorCause,
  targetMessage,
} from '../errors.ts';

const BY_ERRNO: Record<number, TargetErrorCause> = {
  1045: 'authentication_failed', // ER_ACCESS_DENIED_ERROR
  1251: 'authentication_failed', // ER_NOT_SUPPORTED_AUTH_MODE
  1698: 'authentication_failed', // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
  1049: 'unknown_database', // ER_BAD_DB_ERROR
  1044: 'permission_denied', // ER_DBACCESS_DENIED_ERROR: user without rights on the database
  1130: 'permission_denied', // ER_HOST_NOT_PRIVILEGED
  1142: 'permission_denied', // ER_TABLEACCESS_DENIED_ERROR
  1143: 'permission_denied', // ER_COLUMNACCESS_DENIED_ERROR
  1227: 'permission_denied', // ER_SPECIFIC_ACCESS_DENIED_ERROR
  1370: 'permission_denied', // ER_PROCACCESS_DENIED_ERROR
  3159: 'tls', // ER_SECURE_TRANSPORT_REQUIRED
  1040: 'unreachable', // ER_CON_COUNT_ERROR: too many connections
  1129: 'unreachable', // ER_HOST_IS_BLOCKED
  1053: 'connection_lost', // ER_SERVER_SHUTDOWN
  1927: 'connection_lost', // ER_CONNECTION_KILLED (MariaDB)
  2006: 'connection_lost', // CR_SERVER_GONE_ERROR
  2013: 'connection_lost', // CR_SERVER_LOST
  1205: 'timeout', // ER_LOCK_WAIT_TIMEOUT
  1969: 'timeout', // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
  3024: 'timeout', // ER_QUERY_TIMEOUT (MySQL max_execution_time)
};

const BY_DRIVER_CODE: Record<string, TargetErrorCause> = {
  PROTOCOL_CONNECTION_LOST: 'connection_lost',
  PROTOCOL_SEQUENCE_TIMEOUT: 'timeout',
  HANDSHAKE_NO_SSL_SUPPORT: 'tls',
  HANDSHAKE_SSL_ERROR: 'tls',
};

export function classifyMysqlErrno(errno: number): TargetErrorCause {
  return BY_ERRNO[errno] ?? 'other';
}

export function classifyMysqlError(error: unknown, password: string): TargetError {
  if (error instanceof TargetError) return error;
  const code = errorCode(error);
  const errno = (error as { errno?: unknown } | null)?.errno;
  const sqlState = (error as { sqlState?: unknown } | null)?.sqlState;
  let cause: TargetErrorCause;
  // A server error has an SQLSTATE next to its errno; the driver reuses `errno` for socket codes.
  if (typeof errno === 'number' && typeof sqlState === 'string') cause = classifyMysqlErrno(errno);
  else if (code !== undefined) cause = BY_DRIVER_CODE[code] ?? classifySocketCode(code) ?? 'other';
  else cause = 'other';
  return new TargetError(cause, targetMessage(cause, errorMessage(error), password), code ?? null);
}

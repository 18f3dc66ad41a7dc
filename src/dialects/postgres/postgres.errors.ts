// Classification of `pg` errors. Server errors carry a SQLSTATE; socket and TLS failures a Node
// error code. What remains are errors `pg` raises itself without a code (the server closed the
// socket, refused TLS); those are classified by where they happened: during connection set-up with
// TLS requested they are a TLS failure (the server answered "no TLS" or cut the handshake), during
// set-up after the connect timeout has elapsed they are a timeout, during set-up otherwise the sign of
// another protocol at that port (a MySQL server's greeting read as PostgreSQL messages), and after
// set-up a lost connection.
import pg from 'pg';
import {
  classifySocketCode,
  errorCode,
  errorMessage,
  TargetError,
  type TargetErrorCause,
  targetMessage,
} from '../errors.ts';

export interface PgErrorContext {
  phase: 'connect' | 'query';
  tls: boolean;
  /** Milliseconds since the connection attempt began, and the limit it had. */
  elapsedMs?: number;
  connectTimeoutMs?: number;
  password: string;
}

/** The hint for a server that does not speak PostgreSQL's protocol (most often a MySQL port). */
const NOT_POSTGRES =
  'the server at this host and port did not answer as PostgreSQL does (is it another kind of server, such as MySQL or MariaDB on 3306?)';

export function classifySqlState(code: string): TargetErrorCause {
  switch (code) {
    case '28P01': // invalid_password
    case '28000': // invalid_authorization_specification (includes "no pg_hba.conf entry")
      return 'authentication_failed';
    case '3D000': // invalid_catalog_name
      return 'unknown_database';
    case '42501': // insufficient_privilege
      return 'permission_denied';
    case '57014': // query_canceled: statement_timeout
    case '55P03': // lock_not_available: lock_timeout
    case '25P03': // idle_in_transaction_session_timeout
      return 'timeout';
    case '57P03': // cannot_connect_now: starting up or shutting down
    case '53300': // too_many_connections
    case '08001': // sqlclient_unable_to_establish_sqlconnection
    case '08004': // sqlserver_rejected_establishment_of_sqlconnection
      return 'unreachable';
    case '57P01': // admin_shutdown: the backend was terminated
    case '57P02': // crash_shutdown
      return 'connection_lost';
  }
  if (code.startsWith('08')) return 'connection_lost';
  return 'other';
}

export function classifyPgError(error: unknown, context: PgErrorContext): TargetError {
  if (error instanceof TargetError) return error;
  const code = errorCode(error);
  const detail = errorMessage(error);
  let cause: TargetErrorCause;
  if (error instanceof pg.DatabaseError && code !== undefined) cause = classifySqlState(code);
  else if (code !== undefined) cause = classifySocketCode(code) ?? 'other';
  else if (
    context.phase === 'connect' &&
    context.elapsedMs !== undefined &&
    context.connectTimeoutMs !== undefined &&
    context.elapsedMs >= context.connectTimeoutMs
  )
    cause = 'timeout';
  else if (context.phase === 'connect' && context.tls) cause = 'tls';
  else if (context.phase === 'connect') {
    // In time, without TLS, before any PostgreSQL answer: what listens there speaks another protocol.
    cause = 'unreachable';
    return new TargetError(cause, targetMessage(cause, `${NOT_POSTGRES}: ${detail}`, context.password), null);
  } else cause = 'connection_lost';
  return new TargetError(cause, targetMessage(cause, detail, context.password), code ?? null);
}

// TargetError: a failure of a target database, classified into a closed set of causes the API can
// show ("authentication failed", "unreachable", …) and a caller can act on (retry on
// connection_lost, not on authentication_failed). Each dialect classifies its driver's errors by
// SQLSTATE or errno and Node's socket error codes, never by message text. A TargetError's message
// never contains the password: server messages do not carry it, and it is masked anyway where a
// driver or a proxy could echo it (secret-mask.ts).
import { maskSecret } from './secret-mask.ts';

export type TargetErrorCause =
  | 'authentication_failed'
  | 'unknown_database'
  | 'unreachable'
  | 'timeout'
  | 'tls'
  | 'permission_denied'
  | 'connection_lost'
  | 'other';

/** Every cause, as the 502's header and a connection test's `error.code` name it. */
export const TARGET_ERROR_CAUSES = Object.freeze(
  Object.keys({
    authentication_failed: 0,
    unknown_database: 0,
    unreachable: 0,
    timeout: 0,
    tls: 0,
    permission_denied: 0,
    connection_lost: 0,
    other: 0,
  } satisfies Record<TargetErrorCause, 0>),
) as readonly TargetErrorCause[];

const SUMMARY: Record<TargetErrorCause, string> = {
  authentication_failed: 'Authentication failed',
  unknown_database: 'The database does not exist',
  unreachable: 'The server is unreachable',
  timeout: 'The operation timed out',
  tls: 'TLS negotiation failed',
  permission_denied: 'Permission denied',
  connection_lost: 'The connection was lost',
  other: 'The database reported an error',
};

/**
 * The response header of a 502 that carries the cause's code, for clients that act on it (the web
 * application never retries an authentication failure by itself: a login tried again and again
 * trips the lockout of the database server or of a fail2ban in front of it).
 */
export const TARGET_ERROR_HEADER = 'X-Target-Error-Cause';

export class TargetError extends Error {
  override readonly cause: TargetErrorCause;
  /** SQLSTATE, MySQL error symbol or Node error code, when there was one. */
  readonly code: string | null;

  constructor(cause: TargetErrorCause, message: string, code: string | null = null) {
    super(message);
    this.name = 'TargetError';
    this.cause = cause;
    this.code = code;
  }

  toJSON(): { cause: TargetErrorCause; message: string } {
    return { cause: this.cause, message: this.message };
  }
}

/**
 * Node socket and TLS error codes, shared by both drivers. Certificate problems come as OpenSSL's
 * verification codes, handshake failures as ERR_SSL_* / ERR_TLS_*.
 */
export function classifySocketCode(code: string): TargetErrorCause | undefined {
  switch (code) {
    case 'ECONNREFUSED':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EADDRNOTAVAIL':
      return 'unreachable';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return 'timeout';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
      return 'connection_lost';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
    case 'CERT_UNTRUSTED':
    case 'CERT_REJECTED':
    case 'HOSTNAME_MISMATCH':
      return 'tls';
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'tls';
  return undefined;
}

/** The message of a classified error: our summary, then what the server or driver said, masked. */
export function targetMessage(cause: TargetErrorCause, detail: string | undefined, password: string): string {
  const text = detail ? `${SUMMARY[cause]}: ${detail}` : SUMMARY[cause];
  return maskSecret(text, password);
}

/** The `code` property of a driver or Node error, when it is a string. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function errorMessage(error: unknown): string | undefined {
  return error instanceof Error ? error.message : undefined;
}

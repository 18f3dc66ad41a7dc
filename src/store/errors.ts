// Store errors worth telling apart. The store is PostgreSQL (server or PGlite), so SQLSTATE codes.

/** A unique index refused a row: two requests raced past the same "does it exist?" check. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * A foreign key refused a new row because the row it refers to is gone: a request created something
 * under a parent (a project, a connection) that a concurrent request deleted after the access check.
 */
export function isMissingReference(error: unknown): boolean {
  return isForeignKeyViolation(error) && /is not present in table/.test(detailOf(error));
}

/** A foreign key refused a delete because rows still refer to the row (a RESTRICT or NO ACTION key). */
export function isStillReferenced(error: unknown): boolean {
  return isForeignKeyViolation(error) && /is still referenced from table/.test(detailOf(error));
}

function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503';
}

function detailOf(error: unknown): string {
  const detail = (error as { detail?: unknown }).detail;
  return typeof detail === 'string' ? detail : '';
}

/**
 * Node's socket errors and the SQLSTATEs of a server that is gone, shutting down, starting up or out
 * of connections (class 08, 57P01–57P03, 53300): the store is unavailable, not the request wrong.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  // An AggregateError wraps the refusals of each address of a host name. (A socket closed under a
  // query in flight has no code in node-postgres: that request answers 500; the next ones 503.)
  const errors = (error as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.some(isStoreUnavailable);
}

// Store errors worth telling apart. The store is PostgreSQL (server or PGlite), so SQLSTATE codes.

/** A unique index refused a row: two requests raced past the same "does it exist?" check. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

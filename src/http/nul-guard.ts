// PostgreSQL text cannot hold the NUL character (U+0000): a string carrying one would reach the store
// and fail there (SQLSTATE 22021) as a 500. It is refused up front as a 422 naming the field, for the
// JSON body, the query string and the path alike. Found by the contract fuzzing (test/e2e).
import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.ts';

type Location = 'body' | 'query' | 'path';

/** The path to the first string holding a NUL, or null. */
function findNul(value: unknown, at: (string | number)[]): (string | number)[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? at : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNul(item, [...at, index]);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = key.includes('\u0000') ? [...at, key] : findNul(item, [...at, key]);
      if (found) return found;
    }
  }
  return null;
}

export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const parts: [Location, unknown][] = [
      ['path', request.params],
      ['query', request.query],
      ['body', request.body],
    ];
    for (const [location, value] of parts) {
      const loc = findNul(value, [location]);
      if (loc)
        throw new AppError('validation', [
          { loc, msg: 'Text must not contain the NUL character (U+0000)', type: 'string_nul' },
        ]);
    }
  });
}

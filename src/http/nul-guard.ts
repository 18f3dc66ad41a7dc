// PostgreSQL text cannot hold the NUL character (U+0000): a string carrying one would reach the store
// and fail there (SQLSTATE 22021) as a 500. It is refused up front as a 422 naming the field, for the
// JSON body, the query string and the path alike. Found by the contract fuzzing (test/e2e).
import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.ts';

type Location = 'body' | 'query' | 'path';

/** A value still to look at, and how it was reached (its key and the entry it belongs to). */
interface Visit {
  value: unknown;
  key: string | number;
  parent: Visit | null;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | null = visit; at; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The path to the first string (value or key) holding a NUL, or null. Iterative, with each entry
 * linked to its parent rather than carrying a copy of its path: the cost is linear in the value
 * whatever its depth, and no depth can overflow the stack.
 */
function findNul(root: unknown, location: Location): (string | number)[] | null {
  const pending: Visit[] = [{ value: root, key: location, parent: null }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { value } = visit;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return pathOf(visit);
    } else if (Array.isArray(value)) {
      // Pushed last to first, so that the first item is looked at first.
      for (let index = value.length - 1; index >= 0; index--)
        pending.push({ value: value[index], key: index, parent: visit });
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      const named = entries.find(([key]) => key.includes('\u0000'));
      if (named) return pathOf({ value: named[1], key: named[0], parent: visit });
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index] as [string, unknown];
        pending.push({ value: item, key, parent: visit });
      }
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
      const loc = findNul(value, location);
      if (loc)
        throw new AppError('validation', [
          { loc, msg: 'Text must not contain the NUL character (U+0000)', type: 'string_nul' },
        ]);
    }
  });
}

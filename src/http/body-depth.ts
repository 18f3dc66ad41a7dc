// The nesting bound of request bodies (docs/contract.md §1: at most 32 levels, 422 `too_deep`). It is judged on
// the raw text, before JSON.parse and before anything walks the parsed value: one pass that counts
// the brackets open outside strings, so its cost is linear in the body (at most 1 MiB) and it holds
// no stack of its own. A body nested 50,000 levels is refused after reading 33 brackets of it,
// where a recursive walker would have overflowed the stack (and answered 500) seconds later.
import { AppError } from '../core/errors.ts';

export const MAX_BODY_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * True when JSON `text` opens more than `limit` objects or arrays inside one another. Text that is
 * not JSON is judged the same way (JSON.parse refuses it afterwards, if it gets that far).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** The 422 of docs/contract.md §1 for a body nested deeper than the bound, or null when it is within it. */
export function bodyDepthError(text: string): AppError | null {
  if (!nestsDeeperThan(text, MAX_BODY_DEPTH)) return null;
  return new AppError('validation', [
    {
      loc: ['body'],
      msg: `The body must not nest objects and arrays more than ${MAX_BODY_DEPTH} levels deep`,
      type: 'too_deep',
    },
  ]);
}

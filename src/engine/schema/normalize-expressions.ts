// The compared form of a CHECK expression. PostgreSQL stores a check as a parse tree and prints it
// back, but an ALTER … TYPE of a column it reads re-parses the printed text, and the casts then
// print differently for the same check: `ARRAY['a'::character varying, 'b'::character
// varying]::text[]` (as created) becomes `ARRAY['a'::character varying::text, 'b'::character
// varying::text]` (after varchar(20) → varchar(40)). The normal form gathers a cast over a cast
// that every element of an array literal ends with into one cast of the array, as the check is
// printed when it is created; everything else is compared as printed.
import { mask, unmask } from './normalize.ts';

/** A type name as a cast prints it: words, quoted identifiers, a schema, a modifier, array marks. */
const CAST_TYPE =
  /^(?:[a-z_][a-z0-9_$]*|\uE001\d+\uE001)(?:[ .](?:[a-z_][a-z0-9_$]*|\uE001\d+\uE001))*(?:\(\d+(?:,\s*\d+)?\))?(?:\[\])*$/;

/** The index of the bracket that closes the one at `open`, or -1. */
function closing(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i += 1) {
    const ch = code[i];
    if (ch === '(' || ch === '[') depth += 1;
    else if (ch === ')' || ch === ']') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Splits on the commas outside brackets. */
function topLevelParts(code: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < code.length; i += 1) {
    const ch = code[i];
    if (ch === '(' || ch === '[') depth += 1;
    else if (ch === ')' || ch === ']') depth -= 1;
    else if (ch === ',' && depth === 0) {
      parts.push(code.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(code.slice(start).trim());
  return parts;
}

/** The element without its last cast, and that cast's type, when it ends with one. */
function lastCast(element: string): { value: string; type: string } | null {
  let depth = 0;
  for (let i = element.length - 1; i > 0; i -= 1) {
    const ch = element[i];
    if (ch === ')' || ch === ']') depth += 1;
    else if (ch === '(' || ch === '[') depth -= 1;
    else if (depth === 0 && ch === ':' && element[i - 1] === ':') {
      const type = element.slice(i + 1).trim();
      return CAST_TYPE.test(type) ? { value: element.slice(0, i - 1).trim(), type } : null;
    }
  }
  return null;
}

function gatherArrayCasts(code: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const found = code.indexOf('ARRAY[', at);
    if (found < 0) return out + code.slice(at);
    const open = found + 'ARRAY'.length;
    const close = closing(code, open);
    if (close < 0) return out + code.slice(at);
    const elements = topLevelParts(gatherArrayCasts(code.slice(open + 1, close)));
    const casts = elements.map(lastCast);
    const type = casts[0]?.type;
    const alreadyCast = code.slice(close + 1).startsWith('::');
    out += code.slice(at, found);
    // Only a cast over a cast is gathered: that is what the re-parse prints, and an array of
    // plainly cast literals (`ARRAY['a'::text, 'b'::text]`, as created) keeps its form and its hash.
    const gathered =
      !alreadyCast &&
      type !== undefined &&
      casts.every((cast) => cast !== null && cast.type === type && lastCast(cast.value) !== null);
    if (gathered) out += `ARRAY[${casts.map((cast) => cast!.value).join(', ')}]::${type}[]`;
    else out += `ARRAY[${elements.join(', ')}]`;
    at = close + 1;
  }
}

/** The form two CHECK expressions are compared in (PostgreSQL's printing; MySQL's passes as is). */
export function normalizeCheckExpression(expression: string): string {
  const masked = mask(expression, false);
  return unmask(gatherArrayCasts(masked.code), masked);
}

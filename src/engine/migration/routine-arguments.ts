// Whether CREATE OR REPLACE can turn one argument list into another (pg_get_function_arguments
// text): PostgreSQL lets a replacement change default values and add defaults, never rename an
// argument, change a mode or type, or remove a default. Anything else is a drop and a create.

/** Splits at top-level commas: a default may hold commas inside parentheses, brackets or quotes. */
export function splitArguments(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < list.length; i += 1) {
    const ch = list[i]!;
    if (quote !== null) {
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(' || ch === '[') depth += 1;
    else if (ch === ')' || ch === ']') depth -= 1;
    else if (ch === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = list.slice(start).trim();
  if (last !== '' || out.length > 0) out.push(last);
  return out;
}

const withoutDefault = (argument: string) => argument.replace(/ DEFAULT [\s\S]*$/, '');
const hasDefault = (argument: string) => / DEFAULT /.test(argument);

export function sameArgumentsButDefaults(before: string, after: string): boolean {
  if (before === after) return true;
  const [a, b] = [splitArguments(before), splitArguments(after)];
  if (a.length !== b.length) return false;
  return a.every(
    (argument, i) =>
      withoutDefault(argument) === withoutDefault(b[i]!) && (!hasDefault(argument) || hasDefault(b[i]!)),
  );
}

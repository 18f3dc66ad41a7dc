// What a column admits beyond its type: the simple CHECK constraints of its table parsed from the
// catalog's text (comparisons with a constant, `IN` lists and `= ANY (ARRAY[…])`, `BETWEEN`, limits
// on `length`/`char_length`, conjunctions of those), and the predicate of a partial unique index
// (`col IS [NOT] NULL`, `col = const`, a boolean column, conjunctions). Anything else is left to the
// database, which refuses a row that breaks it (the run then fails and writes nothing). Both
// engines' spellings are read: PostgreSQL's casts and parentheses, MySQL's backquotes. Pure.

export interface Bound {
  /** A number, or for dates and timestamps milliseconds since the epoch. */
  value: number;
  inclusive: boolean;
}

export interface ColumnLimits {
  lower?: Bound;
  upper?: Bound;
  /** The only values admitted (an `IN` list), as text. */
  allowed?: string[];
  minLength?: number;
  maxLength?: number;
}

/** One column's condition in a partial index predicate, true for the rows the index covers. */
export type PredicateTerm =
  | { column: string; test: 'null' | 'not_null' }
  | { column: string; test: 'equals'; value: string }
  | { column: string; test: 'not_equals'; value: string };

function stripCasts(text: string): string {
  // `'a'::character varying`, `(x)::text`, `::text[]`, `::timestamp without time zone`
  return text.replace(
    /::\s*(character varying|(?:timestamp|time) (?:with|without) time zone|double precision|bit varying|"[^"]+"|[a-z_][a-z0-9_.]*)(\(\d+(,\s*\d+)?\))?(\[\])?/gi,
    '',
  );
}

/** `(tier)` and `(0)` as `tier` and `0` (what the casts leave behind), except an IN list of one. */
function unwrapAtoms(text: string): string {
  let out = text;
  for (let previous = ''; previous !== out; ) {
    previous = out;
    out = out.replace(
      /\(\s*("[^"]+"|\x60[^\x60]+\x60|[a-z_][a-z0-9_$]*|[-+]?\d+(?:\.\d+)?|'(?:[^']|'')*')\s*\)/gi,
      (whole, atom: string, at: number, all: string) => {
        const before = all.slice(0, at);
        // A function's argument list or an IN list keeps its parentheses.
        return /(\bin|[a-z0-9_]|\barray)\s*$/i.test(before) ? whole : atom;
      },
    );
  }
  return out;
}

/** Removes parentheses that wrap the whole expression. */
function unwrap(text: string): string {
  let t = text.trim();
  for (;;) {
    if (!t.startsWith('(') || !t.endsWith(')')) return t;
    let depth = 0;
    let wraps = true;
    for (let i = 0; i < t.length; i++) {
      if (t[i] === '(') depth++;
      else if (t[i] === ')') depth--;
      if (depth === 0 && i < t.length - 1) {
        wraps = false;
        break;
      }
    }
    if (!wraps) return t;
    t = t.slice(1, -1).trim();
  }
}

/** Splits on top-level AND (outside parentheses and quotes); BETWEEN's AND stays with it. */
function conjuncts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  let between = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0) {
      const rest = text.slice(i, i + 9).toLowerCase();
      if (/^between\s/.test(rest) && /\s$/.test(text[i - 1] ?? ' ')) between = true;
      if (/^and\s/.test(rest) && /\s$/.test(text[i - 1] ?? ' ')) {
        if (between) between = false;
        else {
          parts.push(text.slice(start, i));
          start = i + 3;
        }
      }
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => unwrap(p.trim())).filter((p) => p !== '');
}

const IDENT = String.raw`(?:"([^"]+)"|\x60([^\x60]+)\x60|([a-z_][a-z0-9_$]*))`;
const identOf = (m: RegExpExecArray, at: number) => (m[at] ?? m[at + 1] ?? m[at + 2]) as string;

function literal(text: string): string | null {
  const t = unwrap(text.trim());
  const quoted = /^'((?:[^']|'')*)'$/.exec(t);
  if (quoted) return (quoted[1] as string).replace(/''/g, "'");
  if (/^[-+]?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(t)) return t;
  if (/^(true|false)$/i.test(t)) return t.toLowerCase();
  return null;
}

/** A literal as a number: numbers as they are, dates and timestamps as epoch milliseconds. */
export function boundValue(text: string): number | null {
  if (/^[-+]?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(text)) return Number(text);
  const time = Date.parse(
    /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : `${text.replace(' ', 'T')}Z`,
  );
  return Number.isNaN(time) ? null : time;
}

function listOf(text: string): string[] | null {
  const items: string[] = [];
  for (const raw of text.match(/'(?:[^']|'')*'|[^,\s][^,]*/g) ?? []) {
    const value = literal(raw);
    if (value === null) return null;
    items.push(value);
  }
  return items;
}

const FLIP: Record<string, string> = { '>': '<', '>=': '<=', '<': '>', '<=': '>=', '=': '=' };

function narrow(limits: ColumnLimits, op: string, value: string): void {
  const n = boundValue(value);
  if (op === '=') {
    limits.allowed = [value];
    return;
  }
  if (n === null) return;
  if (op === '>' || op === '>=') {
    const bound = { value: n, inclusive: op === '>=' };
    if (!limits.lower || n > limits.lower.value) limits.lower = bound;
  } else if (op === '<' || op === '<=') {
    const bound = { value: n, inclusive: op === '<=' };
    if (!limits.upper || n < limits.upper.value) limits.upper = bound;
  }
}

/** Adds what one CHECK expression says about each column to `out` (keyed by column name). */
export function readCheck(expression: string, out: Map<string, ColumnLimits>): void {
  const text = unwrap(unwrapAtoms(stripCasts(expression.replace(/^check\s*/i, ''))));
  const limitsOf = (column: string) => {
    let found = out.get(column);
    if (!found) {
      found = {};
      out.set(column, found);
    }
    return found;
  };
  for (const part of conjuncts(text)) {
    let m = new RegExp(`^${IDENT}\\s*(>=|<=|>|<|=)\\s*(.+)$`, 'i').exec(part);
    if (m && literal(m[5] as string) !== null) {
      narrow(limitsOf(identOf(m, 1)), m[4] as string, literal(m[5] as string) as string);
      continue;
    }
    m = new RegExp(`^(.+?)\\s*(>=|<=|>|<|=)\\s*${IDENT}$`, 'i').exec(part);
    if (m && literal(m[1] as string) !== null) {
      narrow(limitsOf(identOf(m, 3)), FLIP[m[2] as string] as string, literal(m[1] as string) as string);
      continue;
    }
    m = new RegExp(`^${IDENT}\\s+between\\s+(.+?)\\s+and\\s+(.+)$`, 'i').exec(part);
    if (m) {
      const [low, high] = [literal(m[4] as string), literal(m[5] as string)];
      if (low !== null) narrow(limitsOf(identOf(m, 1)), '>=', low);
      if (high !== null) narrow(limitsOf(identOf(m, 1)), '<=', high);
      continue;
    }
    m = new RegExp(`^${IDENT}\\s+in\\s*\\((.*)\\)$`, 'i').exec(part);
    if (m) {
      const list = listOf(m[4] as string);
      if (list) limitsOf(identOf(m, 1)).allowed = list;
      continue;
    }
    m = new RegExp(`^${IDENT}\\s*=\\s*any\\s*\\(\\s*\\(?\\s*array\\s*\\[(.*)\\]\\s*\\)?\\s*\\)$`, 'i').exec(
      part,
    );
    if (m) {
      const list = listOf(m[4] as string);
      if (list) limitsOf(identOf(m, 1)).allowed = list;
      continue;
    }
    m = new RegExp(
      `^(?:char_length|character_length|length)\\s*\\(\\s*\\(?${IDENT}\\)?\\s*\\)\\s*(>=|<=|>|<|=)\\s*(\\d+)$`,
      'i',
    ).exec(part);
    if (m) {
      const limits = limitsOf(identOf(m, 1));
      const [op, n] = [m[4] as string, Number(m[5])];
      if (op === '=' || op === '>=' || op === '>') limits.minLength = op === '>' ? n + 1 : n;
      if (op === '=' || op === '<=' || op === '<') limits.maxLength = op === '<' ? n - 1 : n;
    }
  }
}

/**
 * The terms of a partial index predicate, or null when it is not a conjunction of simple terms
 * (the index is then treated as covering every row: stricter, never wrong).
 */
export function readPredicate(predicate: string): PredicateTerm[] | null {
  const terms: PredicateTerm[] = [];
  for (const part of conjuncts(unwrap(unwrapAtoms(stripCasts(predicate))))) {
    let m = new RegExp(`^${IDENT}\\s+is\\s+(not\\s+)?null$`, 'i').exec(part);
    if (m) {
      terms.push({ column: identOf(m, 1), test: m[4] ? 'not_null' : 'null' });
      continue;
    }
    m = new RegExp(`^${IDENT}\\s*(=|<>|!=)\\s*(.+)$`, 'i').exec(part);
    if (m && literal(m[5] as string) !== null) {
      const value = literal(m[5] as string) as string;
      terms.push({ column: identOf(m, 1), test: m[4] === '=' ? 'equals' : 'not_equals', value });
      continue;
    }
    m = new RegExp(`^(not\\s+)?${IDENT}$`, 'i').exec(part);
    if (m) {
      terms.push({ column: identOf(m, 2), test: 'equals', value: m[1] ? 'false' : 'true' });
      continue;
    }
    return null;
  }
  return terms;
}

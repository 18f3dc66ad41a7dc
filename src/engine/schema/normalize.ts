// Normalisation of column defaults and type names, so that what a server prints differently for the
// same thing compares equal. PostgreSQL keeps the cast of the type the column
// had when the default was set (`'bar'::character varying` survives ALTER … TYPE text); MariaDB
// quotes string defaults and writes `current_timestamp()`; MySQL 8 leaves strings unquoted. The
// normal form: literals without casts, numbers in canonical decimal form, booleans as true/false,
// the current-timestamp family as `current_timestamp[(p)]`, keywords lower case outside quotes.
import type { Flavor } from './model.ts';

/** How a server family prints defaults and types in its catalog. */
interface CatalogPrinting {
  /** Defaults are printed bare: an empty one of a string column is '', literals are quoted here by type (MySQL 8). */
  readonly bareDefaults: boolean;
  /** A default printed `NULL` means no default (MariaDB). */
  readonly nullWordIsNoDefault: boolean;
  /** Backslash escapes inside string literals. */
  readonly backslashEscapes: boolean;
  /** Type names are printed canonical already (PostgreSQL's format_type()). */
  readonly canonicalTypes: boolean;
}

const PRINTING: { readonly [F in Flavor]: CatalogPrinting } = {
  postgresql: {
    bareDefaults: false,
    nullWordIsNoDefault: false,
    backslashEscapes: false,
    canonicalTypes: true,
  },
  mysql: { bareDefaults: true, nullWordIsNoDefault: false, backslashEscapes: true, canonicalTypes: false },
  mariadb: { bareDefaults: false, nullWordIsNoDefault: true, backslashEscapes: true, canonicalTypes: false },
};

export interface DefaultContext {
  flavor: Flavor;
  /** The column's canonical type (decides numbers and booleans). */
  type: string;
  /**
   * MySQL 8 only: the default is an expression (`DEFAULT_GENERATED` in EXTRA). Otherwise MySQL 8
   * prints literals unquoted and they are quoted here by column type.
   */
  expression?: boolean;
}

/** The compared form of a default, or null for "no default" (including an explicit NULL). */
export function normalizeDefault(raw: string | null, context: DefaultContext): string | null {
  if (raw === null) return null;
  let text = raw.trim();
  const printing = PRINTING[context.flavor];
  if (text === '') return printing.bareDefaults && isStringType(context.type) ? "''" : null;
  if (printing.nullWordIsNoDefault && text === 'NULL') return null;
  if (printing.bareDefaults && !context.expression) text = mysql8Literal(text, context.type);

  const masked = mask(text, printing.backslashEscapes);
  let code = tidy(masked.code);
  code = stripOuterParens(code);
  code = dropLiteralCasts(code);
  // PostgreSQL prints an explicit DEFAULT NULL as `NULL::<type>`.
  if (NULL_DEFAULT.test(code)) return null;
  code = canonicalTimeFunctions(code);

  const literal = /^\uE000(\d+)\uE000$/.exec(code);
  const kind = typeKind(context.type);
  if (literal) {
    const content = unquote(masked.strings[Number(literal[1])]!);
    if (kind === 'boolean') return canonicalBoolean(content) ?? unmask(code, masked);
    if (kind === 'number') return canonicalNumber(content) ?? unmask(code, masked);
    return unmask(code, masked);
  }
  if (kind === 'boolean') return canonicalBoolean(code) ?? unmask(code, masked);
  return canonicalNumber(code) ?? unmask(code, masked);
}

/**
 * A weaker form for telling a cosmetic difference from a real one: every cast, parenthesis and
 * space removed. Two defaults that differ normalised but agree here are reported as `cosmetic`.
 */
export function looseDefault(normalized: string | null): string | null {
  if (normalized === null) return null;
  const masked = mask(normalized, true);
  const code = masked.code.replace(CAST, '').replace(/[()\s]/g, '');
  return unmask(code, masked);
}

/** Canonical type name as stored in the model. */
export function canonicalType(raw: string, flavor: Flavor, options: { json?: boolean } = {}): string {
  const text = raw.trim();
  if (PRINTING[flavor].canonicalTypes) return text;
  if (options.json) return 'json';
  const masked = mask(text, true);
  let code = masked.code.toLowerCase().replace(/\s+/g, ' ');
  const zerofill = /\bzerofill\b/.test(code);
  // Display widths mean nothing (MySQL 8.0.19+ drops them) except tinyint(1), the boolean idiom,
  // and with ZEROFILL, where the width pads the printed value.
  code = code.replace(
    /^(tinyint|smallint|mediumint|int|integer|bigint)\((\d+)\)/,
    (all, name: string, width) => (zerofill || (name === 'tinyint' && width === '1') ? all : name),
  );
  code = code.replace(/^integer\b/, 'int').replace(/^year\(4\)/, 'year');
  return unmask(code, masked);
}

/** MariaDB stores a `json` column as longtext plus this column-level CHECK named after the column. */
export function isMariaDbJsonCheck(column: string, clause: string): boolean {
  const match = /^json_valid\s*\(\s*`((?:[^`]|``)+)`\s*\)$/i.exec(clause.trim());
  return match !== null && match[1]!.replace(/``/g, '`') === column;
}

/** Canonical decimal form of a numeric literal (`1e3`, `'1000'`, `1000.0` → `1000`), or null. */
export function canonicalNumber(text: string): string | null {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return null;
  const sign = match[1] === '-' ? '-' : '';
  let digits = `${match[2]}${match[3] ?? ''}`;
  let point = match[2]!.length + Number(match[4] ?? 0);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const whole = digits.slice(0, point).replace(/^0+/, '') || '0';
  const fraction = digits.slice(point).replace(/0+$/, '');
  const value = fraction ? `${whole}.${fraction}` : whole;
  return value === '0' ? '0' : sign + value;
}

function canonicalBoolean(text: string): string | null {
  const value = text.trim().toLowerCase();
  if (['t', 'true', 'y', 'yes', 'on', '1'].includes(value)) return 'true';
  if (['f', 'false', 'n', 'no', 'off', '0'].includes(value)) return 'false';
  return null;
}

type TypeKind = 'number' | 'boolean' | 'other';

const NUMERIC_TYPE =
  /^(smallint|integer|bigint|int|int2|int4|int8|tinyint|mediumint|decimal|numeric|real|double|float|float4|float8|dec|fixed)\b/;

function typeKind(type: string): TypeKind {
  const name = type.trim().toLowerCase();
  if (name === 'boolean' || name === 'bool') return 'boolean';
  return NUMERIC_TYPE.test(name) ? 'number' : 'other';
}

function isStringType(type: string): boolean {
  return /^(char|varchar|tinytext|text|mediumtext|longtext|enum|set|binary|varbinary)\b/.test(
    type.toLowerCase(),
  );
}

/** MySQL 8 prints a literal default bare: quote what is not a number or bit literal. */
function mysql8Literal(text: string, type: string): string {
  if (typeKind(type) !== 'other' || /^b'[01]*'$/i.test(text) || /^0x[0-9a-f]+$/i.test(text)) return text;
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

// Literals and quoted identifiers are replaced by placeholders while the code around them is
// rewritten, so that nothing inside quotes is ever lower-cased or mistaken for syntax.
export interface Masked {
  code: string;
  strings: string[];
  identifiers: string[];
}

export function mask(text: string, backslashEscapes: boolean): Masked {
  const strings: string[] = [];
  const identifiers: string[] = [];
  let code = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      while (j < text.length) {
        if (ch === "'" && backslashEscapes && text[j] === '\\') j += 2;
        else if (text[j] === ch && text[j + 1] === ch) j += 2;
        else if (text[j] === ch) break;
        else j += 1;
      }
      const quoted = text.slice(i, j + 1);
      if (ch === "'") {
        // A prefix such as E'…' or _utf8mb4'…' stays in the code, in front of the placeholder.
        code += `\uE000${strings.push(quoted) - 1}\uE000`;
      } else {
        code += `\uE001${identifiers.push(quoted) - 1}\uE001`;
      }
      i = j + 1;
    } else {
      code += ch;
      i += 1;
    }
  }
  return { code, strings, identifiers };
}

export function unmask(code: string, masked: Masked): string {
  return code
    .replace(/\uE000(\d+)\uE000/g, (_, n) => masked.strings[Number(n)]!)
    .replace(/\uE001(\d+)\uE001/g, (_, n) => masked.identifiers[Number(n)]!);
}

function unquote(literal: string): string {
  return literal.slice(1, -1).replace(/''/g, "'");
}

/** Lower case, single spaces, no spaces around parentheses, commas and `::`. */
function tidy(code: string): string {
  return code
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/\s*(::|[(),])\s*/g, '$1')
    .trim();
}

function stripOuterParens(code: string): string {
  let text = code;
  while (text.startsWith('(') && text.endsWith(')') && closingParen(text, 0) === text.length - 1) {
    text = text.slice(1, -1).trim();
  }
  return text;
}

function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === '(') depth += 1;
    else if (text[i] === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

// A cast target as PostgreSQL prints it: optionally schema-qualified (quoted parts are masked),
// multi-word built-ins, a type modifier, array brackets.
const TYPE_WORD = '(?:[a-z_][a-z0-9_$]*|\\uE001\\d+\\uE001)';
const MULTI_WORD =
  '(?: varying| precision| without time zone| with time zone|\\(\\d+\\) without time zone|\\(\\d+\\) with time zone)?';
const CAST = new RegExp(
  `::${TYPE_WORD}(?:\\.${TYPE_WORD})?${MULTI_WORD}(?:\\(\\d+(?:,\\d+)?\\))?(?:\\[\\])*`,
  'g',
);
const NULL_DEFAULT = new RegExp(`^null(?:${CAST.source})?$`);
const LITERAL_CAST = new RegExp(`(\\uE000\\d+\\uE000)${CAST.source}`, 'g');

// `('now')` but not the argument list of a call such as `nextval('s')`.
const LONE_LITERAL_IN_PARENS = /(?<![a-z0-9_$\uE001])\((\uE000\d+\uE000)\)/g;

/** `'bar'::character varying` → `'bar'`, also inside calls: `nextval('s'::regclass)` → `nextval('s')`. */
function dropLiteralCasts(code: string): string {
  let text = code;
  for (;;) {
    const next = stripOuterParens(text.replace(LITERAL_CAST, '$1').replace(LONE_LITERAL_IN_PARENS, '$1'));
    if (next === text) return text;
    text = next;
  }
}

/** now(), CURRENT_TIMESTAMP, current_timestamp(), transaction_timestamp() are one value. */
function canonicalTimeFunctions(code: string): string {
  return code
    .replace(/\b(?:now|current_timestamp|transaction_timestamp|localtimestamp)\(\)/g, 'current_timestamp')
    .replace(/\b(?:now|current_timestamp|localtimestamp)\((\d+)\)/g, 'current_timestamp($1)')
    .replace(/\b(?:curdate|current_date)\(\)/g, 'current_date');
}

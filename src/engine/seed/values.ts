// Generators compiled into value functions: the text the row pipeline writes for row `row` of a
// column (null for NULL), a function of (seed, table, column, row, attempt) only. Realistic
// values (fake-values.ts) are picked by the hash from lists built once per locale (locale-pools.ts),
// names and places through the row's persona that the table's columns share (row-persona.ts), so
// the row agrees with itself; an explicit faker method runs on a faker instance reseeded once per block of
// 1,000 rows from (seed, table, column, block), so a row's value does not depend on the batch it is
// written in. Pure apart from that faker state, which is private to the compiled column.
import type { Faker, LocaleDefinition } from '@faker-js/faker';
import { isClosedFake } from './closed-pools.ts';
import type { SeedColumn } from './column-kind.ts';
import { MAX_VALUE_BYTES, overValueBound, ValueRefused } from './definition.ts';
import { fakeValue } from './fake-values.ts';
import { fakerLibrary } from './faker-library.ts';
import { fakerMethod } from './faker-method.ts';
import { fakerPool } from './faker-pools.ts';
import { index, permutation, streamKey, unit, word } from './hash.ts';
import { localePools } from './locale-pools.ts';
import type { FakeValue, Resolved, ResolvedColumn } from './resolved.ts';
import { columnRoom, length, type PersonaColumn, type RowPersona, rowPersona } from './row-persona.ts';

/** The text of `row`'s value; `values` holds the row's other columns (templates read them). */
export type ValueFn = (row: number, attempt: number, values: (string | null)[]) => string | null;

/** Rows a faker instance is reseeded for, once (reseeding per value measured 16k rows/s). */
export const FAKER_BLOCK = 1000;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => pad(i));

/** `y-mm-dd` of a day counted from 1970-01-01, without a Date (the civil calendar by arithmetic). */
function dayText(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return `${yoe + era * 400 + (month <= 2 ? 1 : 0)}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
}

export function dateText(ms: number): string {
  return dayText(Math.floor(ms / 86_400_000));
}

export function timestampText(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const s = Math.floor((ms - days * 86_400_000) / 1000);
  return `${dayText(days)} ${TWO_DIGITS[Math.floor(s / 3600)]}:${TWO_DIGITS[Math.floor(s / 60) % 60]}:${TWO_DIGITS[s % 60]}`;
}

/**
 * `v` with `scale` digits after the point, as toFixed writes it but in integer arithmetic (toFixed
 * costs a tenth of a microsecond a value); toFixed itself where the units would not be exact.
 */
function fixed(v: number, scale: number): string {
  const factor = 10 ** scale;
  const units = Math.round(v * factor);
  if (scale === 0 || !Number.isSafeInteger(units) || scale > 15) return v.toFixed(scale);
  const abs = Math.abs(units);
  const whole = Math.floor(abs / factor);
  const part = String(abs - whole * factor).padStart(scale, '0');
  return `${units < 0 ? '-' : ''}${whole}.${part}`;
}

/** Text padded when a CHECK wants more characters; cut only for values the definition gives (templates). */
function fitter(seed: SeedColumn): (text: string) => string {
  const max = columnRoom(seed);
  const min = seed.limits.minLength ?? 0;
  if (max === Number.POSITIVE_INFINITY && min === 0) return (t) => t;
  return (t) => {
    // A string's UTF-16 length is at least its length in characters: most texts are settled by it.
    let out = t.length > max && length(t) > max ? [...t].slice(0, max).join('') : t;
    if (min > 0) while (length(out) < min) out += 'x';
    return out;
  };
}

/** A suffix that makes a text distinct per row: `-` and the row number in base 36. */
const rowTag = (row: number, attempt: number) => `-${row.toString(36)}${attempt > 0 ? `.${attempt}` : ''}`;

function fakerLocale(locale: string): LocaleDefinition[] {
  const all = fakerLibrary().allLocales as unknown as Record<string, LocaleDefinition>;
  return [...new Set([locale, locale.split('_')[0] as string, 'en', 'base'])].flatMap((l) =>
    all[l] ? [all[l]] : [],
  );
}

const plannerFakers = new Map<string, Faker>();

/**
 * A faker instance of `locale` for the planner to read the library's lists on (a closed list's
 * size, faker-pools.ts), one per locale for the process; a compiled column has its own.
 */
export function localeFaker(locale: string): Faker {
  let faker = plannerFakers.get(locale);
  if (!faker) {
    faker = new (fakerLibrary().Faker)({ locale: fakerLocale(locale) });
    plannerFakers.set(locale, faker);
  }
  return faker;
}

/** Whatever a faker method answered, as the column's text. */
function fakerText(value: unknown, seed: SeedColumn): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date)
    return seed.family === 'date' ? dateText(value.getTime()) : timestampText(value.getTime());
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export interface CompileContext {
  seed: number;
  table: string;
  locale: string;
  rows: number;
  /** The row's person and place, shared by the table's columns (a column of its own without). */
  persona?: RowPersona;
}

/**
 * Whether a unique fake column is kept distinct by a row tag: not a closed list's (a permutation of
 * it instead, closed-pools.ts), nor a UUID or an object (distinct by their draws).
 */
const taggedFake = (fake: FakeValue, unique: boolean) =>
  unique && !isClosedFake(fake) && fake !== 'uuid' && fake !== 'json';

/**
 * The characters a fake value may take in its column: a unique one leaves room for the longest tag
 * of the run (a row number), so that it is never cut to take it.
 */
export function fakeRoom(seed: SeedColumn, fake: FakeValue, unique: boolean, rows: number): number {
  return columnRoom(seed) - (taggedFake(fake, unique) ? rowTag(Math.max(0, rows - 1), 0).length : 0);
}

/**
 * The fake columns of a table as its row persona sees them: what each shows, in how many
 * characters, and whether its values must be distinct.
 */
export function personaColumns(
  columns: readonly ResolvedColumn[],
  seedColumns: ReadonlyMap<string, SeedColumn>,
  rows: number,
): PersonaColumn[] {
  return columns.flatMap((c) =>
    c.generator.kind === 'fake'
      ? [
          {
            fake: c.generator.fake,
            room: fakeRoom(seedColumns.get(c.name)!, c.generator.fake, c.unique, rows),
            unique: c.unique,
          },
        ]
      : [],
  );
}

/** The fakes drawn from the row's persona: redrawn together so that the row keeps agreeing. */
const PERSONA_FAKES: ReadonlySet<string> = new Set([
  'first_name',
  'last_name',
  'full_name',
  'email',
  'username',
  'city',
  'state',
  'country',
]);

export interface CompiledValue {
  fn: ValueFn;
  /** Distinct per row by construction. */
  distinct: boolean;
  /** Drawn from the row's persona (redraw it with the row's other such columns). */
  shared?: boolean;
  /** Never holds a character the row format escapes: written as it is, without a scan. */
  plain?: boolean;
}

const ESCAPED = /[\\\t\n\r]/;

/** Whether every value of `generator` is written as it is in the row format. */
function plainValues(generator: Resolved, locale: string): boolean {
  switch (generator.kind) {
    case 'key':
    case 'sequence':
    case 'int':
    case 'float':
    case 'date':
    case 'timestamp':
    case 'time':
      return true;
    case 'choice':
      return !generator.values.some((v) => ESCAPED.test(v));
    case 'constant':
      return generator.value === null || !ESCAPED.test(generator.value);
    case 'fake':
      return localePools(locale).plain;
    default:
      return false;
  }
}

/**
 * The value function of one column, and whether its values are distinct by construction (a
 * sequence, a permutation of a finite domain, a per-row tag): unique keys made only of such
 * columns need no tracking.
 */
export function compileValue(
  seed: SeedColumn,
  generator: Resolved,
  unique: boolean,
  context: CompileContext,
  columnIndex: (name: string) => number,
): CompiledValue {
  const compiled = compileFn(seed, generator, unique, context, columnIndex);
  return { ...compiled, plain: plainValues(generator, context.locale) };
}

function compileFn(
  seed: SeedColumn,
  generator: Resolved,
  unique: boolean,
  context: CompileContext,
  columnIndex: (name: string) => number,
): CompiledValue {
  const name = seed.column.name;
  const key = streamKey(context.seed, context.table, name);
  const fitText = fitter(seed);
  const maxChars = columnRoom(seed);
  const distinctDomain = (n: number) => (unique && n >= context.rows ? permutation(key, n) : null);
  switch (generator.kind) {
    case 'null':
    case 'default':
    case 'key':
    case 'reference':
      // Keys and references are filled by the table's row producer; the others are not written.
      return { fn: () => null, distinct: false };
    case 'constant':
      return { fn: () => generator.value, distinct: false };
    case 'sequence':
      return {
        fn: (row) => String(generator.start + row * generator.step),
        distinct: true,
      };
    case 'int': {
      const n = generator.max - generator.min + 1;
      const perm = distinctDomain(n);
      if (perm)
        return {
          fn: (row, attempt) => String(generator.min + perm(row + attempt * context.rows)),
          distinct: true,
        };
      return { fn: (row, attempt) => String(generator.min + index(key, row, n, attempt)), distinct: false };
    }
    case 'float': {
      const { min, max, precision } = generator;
      const scale = precision ?? null;
      return {
        fn: (row, attempt) => {
          const v = min + unit(key, row, attempt) * (max - min);
          return scale === null ? String(v) : fixed(v, scale);
        },
        distinct: false,
      };
    }
    case 'date':
    case 'timestamp': {
      const step = generator.kind === 'date' ? 86_400_000 : 1000;
      const n = Math.floor((generator.to - generator.from) / step) + 1;
      const format = generator.kind === 'date' || seed.family === 'date' ? dateText : timestampText;
      const perm = distinctDomain(n);
      if (perm)
        return {
          fn: (row, attempt) => format(generator.from + perm(row + attempt * context.rows) * step),
          distinct: true,
        };
      return {
        fn: (row, attempt) => format(generator.from + index(key, row, n, attempt) * step),
        distinct: false,
      };
    }
    case 'time':
      return {
        fn: (row, attempt) => {
          const s = index(key, row, 86_400, attempt);
          return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
        },
        distinct: false,
      };
    case 'choice': {
      const { values, weights } = generator;
      if (weights) {
        const total = weights.reduce((a, b) => a + b, 0);
        const cumulative = weights.map(
          (
            (sum) => (w: number) =>
              (sum += w / total)
          )(0),
        );
        return {
          fn: (row, attempt) => {
            const at = firstAbove(cumulative, unit(key, row, attempt));
            return values[Math.min(at, values.length - 1)] as string;
          },
          distinct: false,
        };
      }
      const perm = distinctDomain(values.length);
      if (perm)
        return { fn: (row, attempt) => values[perm(row + attempt * context.rows)] as string, distinct: true };
      return {
        fn: (row, attempt) => values[index(key, row, values.length, attempt)] as string,
        distinct: false,
      };
    }
    case 'template': {
      const parts = generator.template.split(/(\{[^{}]+\})/).map((part) => {
        const m = /^\{([^{}]+)\}$/.exec(part);
        return m ? columnIndex(m[1] as string) : part;
      });
      return {
        fn: bounded(context.table, name, (row, attempt, values) => {
          let out = '';
          for (const part of parts) out += typeof part === 'number' ? (values[part] ?? '') : part;
          return unique ? withTag(out, row, attempt, maxChars) : fitText(out);
        }),
        distinct: unique,
      };
    }
    case 'fake': {
      const fake = generator.fake;
      const tagged = taggedFake(fake, unique);
      const room = fakeRoom(seed, fake, unique, context.rows);
      const persona =
        context.persona ??
        rowPersona(
          localePools(context.locale),
          context.seed,
          context.table,
          [{ fake, room, unique }],
          context.rows,
        );
      const value = fakeValue(fake, persona, key, room);
      return {
        fn: (row, attempt) => {
          const text = value(row, attempt);
          return tagged ? withTag(text, row, attempt, maxChars) : fitText(text);
        },
        // A closed list the persona draws (the country) is drawn once per row there; a unique
        // boolean (two rows at most) is kept apart by the table's tracking of its key.
        distinct: tagged || fake === 'uuid' || (unique && isClosedFake(fake) && PERSONA_FAKES.has(fake)),
        shared: PERSONA_FAKES.has(fake),
      };
    }
    case 'faker': {
      const faker = new (fakerLibrary().Faker)({ locale: fakerLocale(context.locale) });
      // A closed list under a unique key: each entry once, as a `choice` (the planner counted it).
      const pool = unique ? fakerPool(faker, generator.method, generator.args, maxChars) : null;
      const perm = pool ? distinctDomain(pool.length) : null;
      if (pool && perm)
        return {
          fn: (row, attempt) => fitText(pool[perm(row + attempt * context.rows)] as string),
          distinct: true,
        };
      const found = fakerMethod(faker, generator.method)!;
      // A method that refuses its arguments for some draw is the column's error, not the server's.
      const method = (...args: unknown[]) => {
        try {
          return found(...args);
        } catch (error) {
          throw new ValueRefused(
            context.table,
            name,
            `${generator.method} failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      };
      const args = generator.args;
      let block = -1;
      let next = 0;
      return {
        fn: bounded(context.table, name, (row, attempt) => {
          if (attempt > 0) {
            // A redraw for a unique key: reseeded for this row and attempt alone (rare).
            faker.seed(word(key, row, attempt, 3));
            block = -1;
            return fitText(fakerText(method(...args), seed) ?? '');
          }
          const wanted = Math.floor(row / FAKER_BLOCK);
          const offset = row % FAKER_BLOCK;
          if (wanted !== block || next > offset) {
            faker.seed(streamKey(context.seed, context.table, name, `block:${wanted}`));
            block = wanted;
            next = 0;
          }
          // Rows are asked in order; a jump within the block draws the values in between.
          while (next < offset) {
            method(...args);
            next++;
          }
          next++;
          const text = fakerText(method(...args), seed);
          return text === null ? null : fitText(text);
        }),
        distinct: false,
      };
    }
  }
}

/** The first index whose cumulative weight is above `u` (binary search: up to 10,000 weights a row). */
function firstAbove(cumulative: readonly number[], u: number): number {
  let low = 0;
  let high = cumulative.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((cumulative[mid] as number) > u) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** A value function whose values over MAX_VALUE_BYTES stop the preview or run, naming the column (docs/contract.md §9.1). */
function bounded(table: string, column: string, fn: ValueFn): ValueFn {
  return (row, attempt, values) => {
    const text = fn(row, attempt, values);
    if (text !== null && overValueBound(text))
      throw new ValueRefused(table, column, `a generated value is over ${MAX_VALUE_BYTES / 1024} KiB`);
    return text;
  };
}

/**
 * `text` made distinct per row: the tag before an e-mail's `@`, at the end otherwise, the rest cut
 * so that the whole fits `max` characters (the tag is never cut: it is what keeps values apart).
 */
function withTag(text: string, row: number, attempt: number, max: number): string {
  const tag = rowTag(row, attempt);
  const at = text.lastIndexOf('@');
  const [head, tail] = at > 0 ? [text.slice(0, at), text.slice(at)] : [text, ''];
  const room = Math.max(0, max - tag.length - tail.length);
  const cut = [...head].length > room ? [...head].slice(0, room).join('') : head;
  return room === 0 && tail !== '' ? `${tag.slice(1)}`.slice(0, max) : `${cut}${tag}${tail}`;
}

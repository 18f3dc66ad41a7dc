// What a column type change does to the data and to the table: whether it widens (every value
// fits), narrows (values can be cut or refused) or changes family, and whether the engine rewrites
// the table to do it. Used by lint (alter-column-type, costly-alter-on-large-table) and by the
// rollback (changing a type back is lossy). Facts: PostgreSQL rewrites for int→bigint and any cast
// that is not binary-coercible, but not for a longer varchar, varchar→text, a numeric with more
// precision and the same scale, or a timestamp with more precision; MySQL copies the table except
// for a longer VARCHAR or ENUM values appended at the end, which it may do in place.
import type { DialectName } from '../schema/model.ts';

export type TypeDirection = 'same' | 'widening' | 'narrowing' | 'changing';

export interface TypeChange {
  direction: TypeDirection;
  /** The engine rewrites (or, for MySQL, copies) the whole table. */
  rewrite: boolean;
}

interface TypeInfo {
  family: string;
  /** Size rank (bytes of an integer or float, length of a string; null = unbounded). */
  size: number | null;
  scale?: number;
  unsigned?: boolean;
  values?: string[];
}

const PG_INTS: Record<string, number> = { smallint: 2, integer: 4, bigint: 8 };
const MYSQL_INTS: Record<string, number> = { tinyint: 1, smallint: 2, mediumint: 3, int: 4, bigint: 8 };
const MYSQL_TEXTS: Record<string, number> = {
  tinytext: 255,
  text: 65_535,
  mediumtext: 16_777_215,
  longtext: 4_294_967_295,
};

function describeType(raw: string, dialect: DialectName): TypeInfo {
  const type = raw.trim().toLowerCase();
  const args =
    /\(([^)]*)\)/
      .exec(type)?.[1]
      ?.split(',')
      .map((part) => part.trim()) ?? [];
  const base = type
    .replace(/\(.*?\)/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const num = (text: string | undefined) => (text === undefined || text === '' ? null : Number(text));
  if (dialect === 'postgresql') {
    if (base in PG_INTS) return { family: 'int', size: PG_INTS[base]! };
    if (base === 'real') return { family: 'float', size: 4 };
    if (base === 'double precision') return { family: 'float', size: 8 };
    if (base === 'numeric') return { family: 'numeric', size: num(args[0]), scale: num(args[1]) ?? 0 };
    if (base === 'character varying' || base === 'text') return { family: 'text', size: num(args[0]) };
    if (base === 'character') return { family: 'char', size: num(args[0]) ?? 1 };
    const time = /^(timestamp|time) (with|without) time zone$/.exec(base);
    if (time) return { family: `${time[1]} ${time[2]}`, size: num(args[0]) ?? 6 };
    return { family: type, size: null };
  }
  const unsigned = /\bunsigned\b/.test(base);
  const name = base.replace(/\b(unsigned|zerofill)\b/g, '').trim();
  if (name in MYSQL_INTS) return { family: 'int', size: MYSQL_INTS[name]!, unsigned };
  if (name === 'float') return { family: 'float', size: 4 };
  if (name === 'double') return { family: 'float', size: 8 };
  if (name === 'decimal') return { family: 'numeric', size: num(args[0]) ?? 10, scale: num(args[1]) ?? 0 };
  if (name === 'varchar') return { family: 'text', size: num(args[0]) };
  if (name in MYSQL_TEXTS) return { family: 'text', size: MYSQL_TEXTS[name]! };
  if (name === 'char') return { family: 'char', size: num(args[0]) ?? 1 };
  if (name === 'datetime' || name === 'timestamp' || name === 'time')
    return { family: name, size: num(args[0]) ?? 0 };
  if (name === 'enum' || name === 'set') {
    const values = /\((.*)\)/.exec(type)?.[1] ?? '';
    return { family: name, size: null, values: values.split(/,(?=')/) };
  }
  return { family: type, size: null };
}

const bigger = (a: number | null, b: number | null) => a === null || (b !== null && a >= b);

/** The change from type `from` to type `to` (both as the model prints them). */
export function classifyTypeChange(from: string, to: string, dialect: DialectName): TypeChange {
  if (from === to) return { direction: 'same', rewrite: false };
  const a = describeType(from, dialect);
  const b = describeType(to, dialect);
  const pg = dialect === 'postgresql';
  if (a.family !== b.family) return { direction: 'changing', rewrite: true };
  switch (a.family) {
    case 'int':
    case 'float': {
      if (a.unsigned !== b.unsigned) {
        // Signed → unsigned loses negatives; unsigned → a larger signed type holds every value.
        const widens = a.unsigned === true && (b.size ?? 0) > (a.size ?? 0);
        return { direction: widens ? 'widening' : 'narrowing', rewrite: true };
      }
      return { direction: bigger(b.size, a.size) ? 'widening' : 'narrowing', rewrite: true };
    }
    case 'text':
      // MySQL lengthens a VARCHAR in place (while its length bytes stay the same); TEXT is a copy.
      if (bigger(b.size, a.size))
        return { direction: 'widening', rewrite: !pg && !(/^varchar/.test(from) && /^varchar/.test(to)) };
      return { direction: 'narrowing', rewrite: true };
    case 'numeric': {
      const scaleA = a.scale ?? 0;
      const scaleB = b.scale ?? 0;
      if (b.size === null) return { direction: 'widening', rewrite: !pg };
      if (a.size === null) return { direction: 'narrowing', rewrite: true };
      const widens = scaleB >= scaleA && b.size - scaleB >= a.size - scaleA;
      return { direction: widens ? 'widening' : 'narrowing', rewrite: !(pg && widens && scaleA === scaleB) };
    }
    case 'enum':
    case 'set': {
      const before = a.values ?? [];
      const after = b.values ?? [];
      const appended = before.every((value, i) => after[i] === value);
      return appended ? { direction: 'widening', rewrite: false } : { direction: 'changing', rewrite: true };
    }
    default:
      // char, time, timestamp, datetime: the size is a length or a fractional-second precision.
      if (a.size !== null && b.size !== null) {
        const widens = b.size >= a.size;
        return {
          direction: widens ? 'widening' : 'narrowing',
          rewrite: a.family === 'char' || !pg || !widens,
        };
      }
      return { direction: 'changing', rewrite: true };
  }
}

// A column type as the model prints it, read as a family and a size, so that a type change can be
// told a widening, a narrowing or a change of family. Each engine prints its types its own way: one
// reader per engine, chosen through the engine's traits (engine-traits.ts).

export interface ColumnTypeInfo {
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

/** The type's name without its arguments, and its arguments (`numeric(10,2)` → numeric, [10, 2]). */
function split(raw: string): { type: string; base: string; args: string[] } {
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
  return { type, base, args };
}

const num = (text: string | undefined) => (text === undefined || text === '' ? null : Number(text));

/** A type as PostgreSQL's format_type() prints it. */
export function describePostgresType(raw: string): ColumnTypeInfo {
  const { type, base, args } = split(raw);
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

/** A type as MySQL's and MariaDB's COLUMN_TYPE prints it. */
export function describeMysqlType(raw: string): ColumnTypeInfo {
  const { type, base, args } = split(raw);
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

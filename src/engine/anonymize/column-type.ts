// What a transformer needs to know of a column: its family of values, the length a text must fit,
// the range an integer must stay in and the scale of a decimal. Read from the canonical type names
// of the schema model (PostgreSQL format_type(), MySQL COLUMN_TYPE), the same for both engines.

export type ColumnFamily =
  | 'text'
  | 'integer'
  | 'numeric'
  | 'date'
  | 'timestamp'
  | 'json'
  | 'uuid'
  | 'inet'
  | 'boolean'
  | 'other';

export interface ColumnShape {
  family: ColumnFamily;
  /** Characters a text may hold (varchar(n), char(n)); null when unbounded. */
  maxLength: number | null;
  /** Inclusive bounds of an integer column. */
  min: bigint | null;
  max: bigint | null;
  /** Digits after the point of numeric(p,s); null for floating point or unconstrained numeric. */
  scale: number | null;
  /** Digits in all of numeric(p,s); null when unconstrained. */
  precision: number | null;
  nullable: boolean;
}

const INTEGER_BITS: Record<string, number> = {
  tinyint: 8,
  smallint: 16,
  mediumint: 24,
  int: 32,
  integer: 32,
  bigint: 64,
};

function integerBounds(bits: number, unsigned: boolean): { min: bigint; max: bigint } {
  if (unsigned) return { min: 0n, max: (1n << BigInt(bits)) - 1n };
  return { min: -(1n << BigInt(bits - 1)), max: (1n << BigInt(bits - 1)) - 1n };
}

const BASE: ColumnShape = {
  family: 'other',
  maxLength: null,
  min: null,
  max: null,
  scale: null,
  precision: null,
  nullable: true,
};

/** The shape of a column from its canonical type name and nullability. */
export function columnShape(type: string, nullable = true): ColumnShape {
  const t = type.trim().toLowerCase();
  const shape = (s: Partial<ColumnShape>): ColumnShape => ({ ...BASE, nullable, ...s });
  if (t.endsWith('[]')) return shape({ family: 'other' });
  const sized = /^(character varying|varchar|character|char|nvarchar|nchar)\s*\((\d+)\)/.exec(t);
  if (sized) return shape({ family: 'text', maxLength: Number(sized[2]) });
  if (/^(text|tinytext|mediumtext|longtext|character varying|varchar|citext|bpchar|name)$/.test(t))
    return shape({ family: 'text', maxLength: t === 'tinytext' ? 255 : null });
  if (t === 'tinyint(1)' || t === 'boolean' || t === 'bool') return shape({ family: 'boolean' });
  const integer = /^(tinyint|smallint|mediumint|int|integer|bigint)(\(\d+\))?( unsigned)?( zerofill)?$/.exec(
    t,
  );
  if (integer) {
    const bits = INTEGER_BITS[integer[1] as string] as number;
    return shape({ family: 'integer', ...integerBounds(bits, integer[3] !== undefined) });
  }
  if (/^(smallserial|serial|bigserial)$/.test(t))
    return shape({
      family: 'integer',
      ...integerBounds(t === 'smallserial' ? 16 : t === 'serial' ? 32 : 64, false),
    });
  const decimal = /^(numeric|decimal)\s*\((\d+)(?:,\s*(\d+))?\)/.exec(t);
  if (decimal)
    return shape({ family: 'numeric', precision: Number(decimal[2]), scale: Number(decimal[3] ?? 0) });
  if (/^(numeric|decimal|real|double precision|double|float|float4|float8)/.test(t))
    return shape({ family: 'numeric' });
  if (t === 'date') return shape({ family: 'date' });
  if (/^(timestamp|datetime)/.test(t)) return shape({ family: 'timestamp' });
  if (t === 'json' || t === 'jsonb') return shape({ family: 'json' });
  if (t === 'uuid') return shape({ family: 'uuid' });
  if (t === 'inet' || t === 'cidr') return shape({ family: 'inet' });
  return shape({ family: 'other' });
}

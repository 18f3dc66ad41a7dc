// Numeric transformers (noise, range, generalize) over the values drivers give: integers as number,
// bigint or decimal string (PostgreSQL's bigint), decimals as string or number. The output keeps the
// input's representation and stays within the column: integer bounds, numeric(p,s) scale and digits.
import type { ColumnShape } from './column-type.ts';

export type NumberInput = number | bigint | string;

function toBigInt(value: NumberInput): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  return BigInt(value.trim().split('.')[0] as string);
}

function sameRepresentation(value: NumberInput, out: bigint): NumberInput {
  if (typeof value === 'bigint') return out;
  if (typeof value === 'number') return Number(out);
  return out.toString();
}

function clampBig(v: bigint, shape: ColumnShape): bigint {
  if (shape.min !== null && v < shape.min) return shape.min;
  if (shape.max !== null && v > shape.max) return shape.max;
  return v;
}

/** The scale a decimal is written with: the column's, else as many digits as the input had. */
function scaleOf(value: NumberInput, shape: ColumnShape): number | null {
  if (shape.scale !== null) return shape.scale;
  if (typeof value === 'string') return value.split('.')[1]?.length ?? 0;
  return null;
}

function writeDecimal(value: NumberInput, x: number, shape: ColumnShape): NumberInput {
  const scale = scaleOf(value, shape);
  let v = x;
  if (shape.precision !== null) {
    const limit = 10 ** (shape.precision - (shape.scale ?? 0)) - 10 ** -(shape.scale ?? 0);
    v = Math.max(-limit, Math.min(limit, v));
  }
  if (typeof value === 'string') return scale === null ? String(v) : v.toFixed(scale);
  return scale === null ? v : Number(v.toFixed(scale));
}

/** `u` in [-1, 1): how far, and which way, the noise goes. */
export function noiseNumber(value: NumberInput, ratio: number, u: number, shape: ColumnShape): NumberInput {
  if (shape.family === 'integer') {
    const v = toBigInt(value);
    const delta = BigInt(Math.round(Number(v) * ratio * u));
    return sameRepresentation(value, clampBig(v + delta, shape));
  }
  const x = Number(value);
  return writeDecimal(value, x + x * ratio * u, shape);
}

/** A value in [min, max]; `fraction` in [0, 1) and `wide` (a 48-bit integer) place it. */
export function rangeNumber(
  value: NumberInput | null,
  min: number,
  max: number,
  fraction: number,
  shape: ColumnShape,
  representation: 'number' | 'string',
): NumberInput {
  const template: NumberInput = value ?? (representation === 'string' ? '0' : 0);
  if (shape.family === 'integer') {
    const span = BigInt(max) - BigInt(min) + 1n;
    const offset = BigInt(Math.floor(fraction * 2 ** 48)) % span;
    return sameRepresentation(template, BigInt(min) + offset);
  }
  return writeDecimal(template, min + fraction * (max - min), shape);
}

/** Rounded down to a multiple of `step` (towards minus infinity, so -1 with step 10 is -10). */
export function generalizeNumber(value: NumberInput, step: number, shape: ColumnShape): NumberInput {
  if (shape.family === 'integer') {
    const v = toBigInt(value);
    const s = BigInt(step);
    let q = v / s;
    if (v % s !== 0n && v < 0n) q -= 1n;
    return sameRepresentation(value, clampBig(q * s, shape));
  }
  const x = Number(value);
  return writeDecimal(value, Math.floor(x / step) * step, shape);
}

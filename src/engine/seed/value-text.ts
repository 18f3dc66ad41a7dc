// A value a definition gives (a `choice` or `constant` value, a bound of a range) read as the text
// the row pipeline writes for the column, or why it cannot be one: of the column's type, within its
// length, a label of its enum, allowed by the table's CHECKs, not null in a NOT NULL column. Pure.
import type { SeedColumn } from './column-kind.ts';
import { boundValue } from './limits.ts';

/** A time as epoch milliseconds, or null when the text is not an ISO 8601 date or timestamp. */
export function parseTime(value: unknown): number | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  return (
    boundValue(value.trim().replace(/Z$/, '')) ?? (Number.isNaN(Date.parse(value)) ? null : Date.parse(value))
  );
}

/** A value of the definition as the text the row pipeline writes for this column, or why it cannot be one. */
export function valueText(seed: SeedColumn, value: unknown): { text: string | null } | { error: string } {
  if (value === null) return seed.column.nullable ? { text: null } : { error: 'null in a NOT NULL column' };
  const { family, shape, limits } = seed;
  let text: string;
  switch (family) {
    case 'integer': {
      const n =
        typeof value === 'string' && /^-?\d+$/.test(value)
          ? BigInt(value)
          : typeof value === 'number' && Number.isInteger(value)
            ? BigInt(value)
            : null;
      if (n === null) return { error: `${JSON.stringify(value)} is not an integer` };
      if ((shape.min !== null && n < shape.min) || (shape.max !== null && n > shape.max))
        return { error: `${n} is outside the range of ${seed.column.type}` };
      text = n.toString();
      break;
    }
    case 'numeric':
    case 'float': {
      const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
      if (!Number.isFinite(n)) return { error: `${JSON.stringify(value)} is not a number` };
      text = String(value);
      break;
    }
    case 'boolean':
      if (typeof value !== 'boolean') return { error: `${JSON.stringify(value)} is not a boolean` };
      text = value ? 't' : 'f';
      break;
    case 'date':
    case 'timestamp':
      if (parseTime(value) === null)
        return { error: `${JSON.stringify(value)} is not an ISO 8601 ${family}` };
      text = String(value);
      break;
    case 'json':
      text = JSON.stringify(value);
      break;
    case 'enum':
      if (!seed.enumValues?.includes(String(value)))
        return { error: `${JSON.stringify(value)} is not a label of ${seed.column.type}` };
      text = String(value);
      break;
    default:
      if (typeof value === 'object') return { error: `${JSON.stringify(value)} is not a scalar` };
      text = String(value);
      if (shape.maxLength !== null && [...text].length > shape.maxLength)
        return { error: `"${text}" is longer than ${shape.maxLength} characters` };
  }
  if (limits.allowed && !limits.allowed.includes(text))
    return { error: `${text} breaks a CHECK of the table (allowed: ${limits.allowed.join(', ')})` };
  const n = family === 'date' || family === 'timestamp' ? parseTime(text) : Number(text);
  if (n !== null && Number.isFinite(n)) {
    if (limits.lower && (n < limits.lower.value || (!limits.lower.inclusive && n === limits.lower.value)))
      return { error: `${text} breaks a CHECK of the table (a lower bound)` };
    if (limits.upper && (n > limits.upper.value || (!limits.upper.inclusive && n === limits.upper.value)))
      return { error: `${text} breaks a CHECK of the table (an upper bound)` };
  }
  const length = [...text].length;
  if (limits.minLength !== undefined && length < limits.minLength)
    return { error: `"${text}" is shorter than a CHECK of the table allows (${limits.minLength})` };
  if (limits.maxLength !== undefined && length > limits.maxLength)
    return { error: `"${text}" is longer than a CHECK of the table allows (${limits.maxLength})` };
  return { text };
}

// PostgreSQL sequence options as DDL: a sequence's full option list, an identity's (without AS:
// its type is the column's), and the step that moves a sequence's current value inside bounds that
// narrow (ALTER refuses bounds that exclude it). Numbers are checked to be integers: they come
// from the catalog as text.
import type { TableRef } from '../../engine/migration/operations.ts';
import type { SequenceModel, SequenceOptions } from '../../engine/schema/model.ts';
import { id, lit, table } from './postgres.ddl-names.ts';

export function integer(value: string): string {
  if (!/^-?\d+$/.test(value)) throw new Error(`Not an integer: ${value}`);
  return value;
}

export function sequenceOptions(s: SequenceModel): string {
  return (
    `AS ${s.data_type} INCREMENT BY ${integer(s.increment)} MINVALUE ${integer(s.min_value)}` +
    ` MAXVALUE ${integer(s.max_value)} START WITH ${integer(s.start)} CACHE ${integer(s.cache)}` +
    `${s.cycle ? ' CYCLE' : ' NO CYCLE'}`
  );
}

/** The sequence options of an identity, without AS (its type is the column's). */
export function identityOptions(o: SequenceOptions, prefix: string): string[] {
  return [
    `${prefix}INCREMENT BY ${integer(o.increment)}`,
    `${prefix}MINVALUE ${integer(o.min_value)}`,
    `${prefix}MAXVALUE ${integer(o.max_value)}`,
    `${prefix}START WITH ${integer(o.start)}`,
    `${prefix}CACHE ${integer(o.cache)}`,
    `${prefix}${o.cycle ? 'CYCLE' : 'NO CYCLE'}`,
  ];
}

/**
 * Bounds that narrow would be refused while the sequence's current value lies outside them: it is
 * moved inside first (its next value is the nearest bound, or where it was when that fits), within
 * both the old bounds (setval checks those) and the new ones. When the two ranges do not meet, no
 * value fits both: the ALTER restarts the sequence instead (`restartsSequence`).
 */
export function clampSequence(sequence: string, before: SequenceOptions, after: SequenceOptions): string[] {
  const narrows =
    BigInt(after.min_value) > BigInt(before.min_value) || BigInt(after.max_value) < BigInt(before.max_value);
  if (!narrows || restartsSequence(before, after)) return [];
  const low = BigInt(after.min_value) > BigInt(before.min_value) ? after.min_value : before.min_value;
  const high = BigInt(after.max_value) < BigInt(before.max_value) ? after.max_value : before.max_value;
  const [min, max] = [integer(low), integer(high)];
  return [
    `SELECT setval(s, greatest(least(coalesce(pg_sequence_last_value(s), ${min}), ${max}), ${min}),` +
      ` pg_sequence_last_value(s) IS NOT NULL) FROM (SELECT ${sequence} AS s) AS q`,
  ];
}

/** Whether the old and new ranges are disjoint, so the ALTER must RESTART (at the new START). */
export function restartsSequence(before: SequenceOptions, after: SequenceOptions): boolean {
  return (
    BigInt(after.min_value) > BigInt(before.max_value) || BigInt(after.max_value) < BigInt(before.min_value)
  );
}

/** Moves a sequence past the highest value a column holds (after rows were put back or numbered). */
export function syncSequence(t: TableRef, column: string, sequence: string | null): string {
  const target = sequence ?? `pg_get_serial_sequence(${lit(table(t))}, ${lit(column)})`;
  // setval is strict: on an empty table max() is null and the sequence is left as it is.
  return `SELECT setval(${target}, max(${id(column)})) FROM ${table(t)}`;
}

// A run plan (run-plan.ts) compiled into what the row pipeline calls: per table, a function of one
// row (every rule but shuffle, each compiled once for its column's shape) and a function of a batch
// (the same, then the shuffled columns permuted within the batch by a keyed order of the rows' keys).
// The bridge calls these in flight; an in-place run calls them between the row stream out and the
// staging table. Rows are plain objects keyed by column name; a row is never changed in place.

import type { FieldTransform } from '../rows/transform.ts';
import { compileTransformer, type ValueTransformer } from './compile.ts';
import { canonicalJson } from './keyed.ts';
import type { RunPlan } from './run-plan.ts';
import { shuffleBatch, shuffleSalt } from './shuffle.ts';

export type Row = Record<string, unknown>;

export interface TableTransform {
  table: string;
  /** The columns whose values change. */
  columns: string[];
  /** Each column's rule but shuffle, as a function of one value. */
  perValue: ReadonlyMap<string, ValueTransformer>;
  /** The shuffled columns (permuted within a batch, so never a function of one value). */
  shuffled: readonly string[];
  /** Every rule but shuffle, on one row. */
  row(row: Row): Row;
  /** row() on each, then the shuffled columns permuted among the batch's rows. */
  batch(rows: readonly Row[]): Row[];
}

export function compileTableTransforms(plan: RunPlan, key: Buffer): Map<string, TableTransform> {
  const salt = shuffleSalt(key);
  const out = new Map<string, TableTransform>();
  for (const group of plan.groups) {
    for (const table of group.tables) {
      const perValue: [string, ValueTransformer][] = [];
      const shuffled: string[] = [];
      for (const planned of table.columns) {
        if (planned.rule.transformer === 'shuffle') shuffled.push(planned.column);
        else perValue.push([planned.column, compileTransformer(planned.rule, planned.shape, key)]);
      }
      const row = (input: Row): Row => {
        const copy = { ...input };
        // Own columns only: a column named `constructor` or `toString` is data, never what rows inherit.
        for (const [column, apply] of perValue)
          if (Object.hasOwn(copy, column)) copy[column] = apply(copy[column]);
        return copy;
      };
      const rowKey = (r: Row) => canonicalJson(table.key.map((k) => r[k] ?? null));
      const batch = (rows: readonly Row[]): Row[] => {
        const done = rows.map(row);
        if (shuffled.length === 0 || done.length < 2) return done;
        const keys = rows.map(rowKey);
        for (const column of shuffled) {
          const permuted = shuffleBatch(
            salt,
            done.map((r) => r[column]),
            keys,
          );
          done.forEach((r, i) => {
            r[column] = permuted[i];
          });
        }
        return done;
      };
      out.set(table.table, {
        table: table.table,
        columns: table.columns.map((c) => c.column),
        perValue: new Map(perValue),
        shuffled,
        row,
        batch,
      });
    }
  }
  return out;
}

/** A row as the row pipeline's per-row hook sees it: each field's neutral text, or null, in stream order. */
export type TextRow = (string | null)[];

/** A transformed value as the pipeline's neutral text (null stays null). */
export function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The table's per-row transform for the row pipeline's hook (positional text rows whose fields are
 * `columns`, in order): every value arrives as text, which the transformers take as they take a
 * driver's strings, and leaves as text. Shuffle is not applied here: it needs a batch.
 */
export function positionalTransform(
  transform: TableTransform,
  columns: readonly string[],
): (row: TextRow) => TextRow {
  const touched = columns.flatMap((c, i) => (transform.columns.includes(c) ? [i] : []));
  return (row) => {
    const named: Row = {};
    for (const i of touched) named[columns[i] as string] = row[i] ?? null;
    const done = transform.row(named);
    const out = row.slice();
    for (const i of touched) out[i] = asText(done[columns[i] as string]);
    return out;
  };
}

/**
 * The table's batch transform for the row pipeline (positional text rows whose fields are
 * `columns`): every rule, shuffles included (permuted among the batch's rows, by the keyed order
 * of their keys, so a batch boundary is where a shuffle's reach ends). Used by the bridge in flight.
 */
export function positionalBatchTransform(
  transform: TableTransform,
  columns: readonly string[],
): (rows: TextRow[]) => TextRow[] {
  const touched = columns.flatMap((c, i) => (transform.columns.includes(c) ? [i] : []));
  return (rows) => {
    const named = rows.map((row) => {
      const out: Row = {};
      columns.forEach((c, i) => {
        out[c] = row[i] ?? null;
      });
      return out;
    });
    return transform.batch(named).map((done, r) => {
      const out = (rows[r] as TextRow).slice();
      for (const i of touched) out[i] = asText(done[columns[i] as string]);
      return out;
    });
  };
}

/**
 * The table's rules as per-field transforms of the row pipeline's text, by the field's position in
 * `columns`; null when a shuffled column is among them (a shuffle needs the whole batch: use
 * positionalBatchTransform). Fields without a rule are absent, so they pass on undecoded.
 */
export function positionalFieldTransforms(
  transform: TableTransform,
  columns: readonly string[],
): Map<number, FieldTransform> | null {
  if (transform.shuffled.some((c) => columns.includes(c))) return null;
  const fields = new Map<number, FieldTransform>();
  columns.forEach((column, at) => {
    const apply = transform.perValue.get(column);
    if (!apply) return;
    const field: FieldTransform = (value) => asText(apply(value));
    const utf8 = apply.utf8;
    if (utf8) field.utf8 = (data, start, end) => asText(utf8(data, start, end));
    fields.set(at, field);
  });
  return fields;
}

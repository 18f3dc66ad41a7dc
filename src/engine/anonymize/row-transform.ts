// A run plan (run-plan.ts) compiled into what the row pipeline calls: per table, a function of one
// row (every rule but shuffle, each compiled once for its column's shape) and a function of a batch
// (the same, then the shuffled columns permuted within the batch by a keyed order of the rows' keys).
// The bridge calls these in flight; an in-place run calls them between the row stream out and the
// staging table. Rows are plain objects keyed by column name; a row is never changed in place.
import { compileTransformer, type ValueTransformer } from './compile.ts';
import { canonicalJson } from './keyed.ts';
import type { RunPlan } from './run-plan.ts';
import { shuffleBatch, shuffleSalt } from './shuffle.ts';

export type Row = Record<string, unknown>;

export interface TableTransform {
  table: string;
  /** The columns whose values change. */
  columns: string[];
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
        for (const [column, apply] of perValue) if (column in copy) copy[column] = apply(copy[column]);
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
      out.set(table.table, { table: table.table, columns: table.columns.map((c) => c.column), row, batch });
    }
  }
  return out;
}

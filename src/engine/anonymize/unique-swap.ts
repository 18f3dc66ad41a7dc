// Writing transformed values of a unique column back in place without a collision mid-UPDATE.
// PostgreSQL checks a unique constraint that is not DEFERRABLE row by row as the UPDATE goes (the
// SQL standard's end-of-statement check applies only to deferrable ones), and InnoDB checks every
// row too: a shuffle that swaps two rows' values, or a keyed transform that maps one row's value
// onto a value another row still holds, fails halfway. So such columns go through temporary values
// first: every row's column set to a value no row holds before or after (a number past the
// column's current and final ranges, or a marker no value starts with followed by the row's rank),
// then to its final value. Pure: the run asks the database for the bounds and markers in use.
import type { TableModel } from '../schema/model.ts';
import type { ColumnShape } from './column-type.ts';

/** Markers a temporary text value starts with; the first that no value starts with is used. */
export const TEXT_MARKERS = ['~', '~~', '#~', '~#', '!~', '~!'] as const;

/** The transformed columns that belong to a unique key or unique index of `table`. */
export function columnsToSwap(table: TableModel, transformed: readonly string[]): string[] {
  const uniqueSets = [
    ...(table.primary_key ? [table.primary_key.columns] : []),
    ...table.unique_constraints.map((u) => u.columns),
    ...table.indexes.filter((i) => i.unique).map((i) => i.columns),
  ];
  return transformed.filter((column) => uniqueSets.some((set) => set.includes(column)));
}

/**
 * How the temporary integers of a column are made from each row's rank (1..rows): past the largest
 * value the column holds now or will hold (`low`/`high` over both), or below the smallest, where
 * the column's type has room; null when it has none on either side.
 */
export function integerTemporaries(
  shape: ColumnShape,
  bounds: { low: bigint; high: bigint },
  rows: number,
): { base: bigint; step: 1n | -1n } | null {
  const n = BigInt(rows);
  if (shape.max === null || bounds.high + n <= shape.max) return { base: bounds.high, step: 1n };
  if (shape.min === null || bounds.low - n >= shape.min) return { base: bounds.low, step: -1n };
  return null;
}

/** Whether `marker` followed by a rank up to `rows` fits the column's length. */
export function markerFits(shape: ColumnShape, marker: string, rows: number): boolean {
  return shape.maxLength === null || marker.length + String(rows).length <= shape.maxLength;
}

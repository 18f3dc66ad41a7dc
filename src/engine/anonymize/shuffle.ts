// `shuffle`: the column's values permuted among its rows. The permutation is keyed: rows are ordered
// by a keyed hash of their primary key, and the i-th row in that order takes the value of the i-th
// row in key order. In place this is one set-based statement pairing two row_number() orders (the
// SQL comes with the run); on the bridge it is applied within each batch of rows, so memory stays
// bounded and the values still only move between rows of the same batch.
import { createHmac } from 'node:crypto';
import { purposeLabel } from './keyed.ts';

/**
 * The salt the keyed order uses, derived from the config's key so that the key itself never goes
 * into SQL text or a target's session: the in-place statement orders by a hash of salt and row key.
 */
export function shuffleSalt(key: Buffer): string {
  return createHmac('sha256', key).update(purposeLabel('shuffle', {})).digest('hex');
}

/** The keyed position of a row: rows sorted by it take the values of rows sorted by key. */
export function shuffleOrderKey(salt: string, rowKey: string): string {
  return createHmac('sha256', salt).update(rowKey).digest('hex');
}

/**
 * The batch's values permuted: `rowKeys[i]` identifies the row holding `values[i]`. The result's
 * i-th entry is the value row i gets. A batch of one keeps its value (nothing to swap with).
 */
export function shuffleBatch<T>(salt: string, values: readonly T[], rowKeys: readonly string[]): T[] {
  if (values.length !== rowKeys.length) throw new Error('one row key per value');
  const byKey = rowKeys.map((_, i) => i).sort((a, b) => compare(rowKeys[a] as string, rowKeys[b] as string));
  const order = rowKeys.map((k) => shuffleOrderKey(salt, k));
  const byHash = rowKeys.map((_, i) => i).sort((a, b) => compare(order[a] as string, order[b] as string));
  const out = new Array<T>(values.length);
  for (let rank = 0; rank < values.length; rank++)
    out[byHash[rank] as number] = values[byKey[rank] as number] as T;
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

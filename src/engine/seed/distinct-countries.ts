// The countries of a unique country column: each row of the run gets a country no other row has,
// so the column holds real ISO codes (or names) rather than codes a row tag made distinct. The
// countries whose cities the lists know come first, so that as many rows as can still have a city
// (and a state) in their country. Pure.
import { index, permutation, word } from './hash.ts';
import type { Country } from './locale-pools.ts';

/** `list` in an order the key decides. */
function shuffled<T>(list: readonly T[], key: number): T[] {
  const at = permutation(key, list.length);
  return list.map((_, i) => list[at(i)]!);
}

/**
 * The country of row `row` (and redraw `attempt`) among `pool`, distinct for the first `rows` rows;
 * `placed` holds the alpha-2 codes of the countries with cities. A redraw (the row repeats a value
 * already in the table) takes one of the countries no row of the run has, and keeps the row's own
 * when every country is taken: the row's other columns then give way.
 */
export function distinctCountries(
  pool: readonly Country[],
  placed: ReadonlySet<string>,
  key: number,
  rows: number,
): (row: number, attempt: number) => Country {
  const ordered = [
    ...shuffled(
      pool.filter((c) => placed.has(c.alpha2)),
      word(key, 0, 0, 1),
    ),
    ...shuffled(
      pool.filter((c) => !placed.has(c.alpha2)),
      word(key, 0, 0, 2),
    ),
  ];
  // The first `used` of the order, one per row: those with cities first.
  const used = Math.max(1, Math.min(rows, ordered.length));
  const slot = permutation(word(key, 0, 0, 3), used);
  const spare = ordered.length - used;
  return (row, attempt) =>
    attempt === 0 || spare <= 0 ? ordered[slot(row)]! : ordered[used + index(key, row, spare, attempt)]!;
}

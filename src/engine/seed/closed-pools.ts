// Fakes whose every value is an entry of a closed list: a country's ISO 3166 code or name, true or
// false. A row tag would make a value that is none of them (`DE-a` does not fit a `char(2)` and is
// no code), so a unique column of one holds each entry of its list once (the country: a
// permutation the row's persona draws, distinct-countries.ts; a boolean, two rows at most: the
// table's tracking of its key), and at most as many rows as the list has entries: the planner
// refuses more. The other fakes (names, places, words) are open: a tag keeps them apart. Explicit
// faker methods of a closed list follow the same rule (faker-pools.ts).
import type { LocalePools } from './locale-pools.ts';
import type { FakeValue } from './resolved.ts';
import { distinctCountryPool, type PersonaColumn } from './row-persona.ts';

const CLOSED_FAKES: ReadonlySet<FakeValue> = new Set<FakeValue>(['country', 'boolean']);

export const isClosedFake = (fake: FakeValue): boolean => CLOSED_FAKES.has(fake);

/**
 * How many distinct values a closed fake gives in a table whose fake columns are `columns`
 * (a country written by name must fit the table's narrowest name column); null for an open one.
 */
export function closedPoolSize(
  fake: FakeValue,
  pools: LocalePools,
  columns: readonly PersonaColumn[],
): number | null {
  switch (fake) {
    case 'country':
      return distinctCountryPool(pools, columns).length;
    case 'boolean':
      return 2;
    default:
      return null;
  }
}

// The faker methods whose values are the entries of a closed list in the library's data: ISO 3166
// country codes, ISO 4217 currencies, the locale's country names, the continents. A unique column
// given one of them draws each entry once (a permutation of the list, as a `choice` does) and holds
// at most as many rows as the list has entries that fit it: the planner refuses more when the
// scenario is saved, rather than the run failing once its redraws find no value left. Other
// methods are drawn by faker, a unique key then kept by redraws. Pure apart from the faker data.
import type { Faker } from '@faker-js/faker';
import { length } from './row-persona.ts';

type ListOf = (faker: Faker, args: readonly unknown[]) => readonly unknown[] | null;

/** The field of an ISO 3166 entry `location.countryCode` writes for its arguments, as faker reads them. */
function countryCodeField(args: readonly unknown[]): 'alpha2' | 'alpha3' | 'numeric' | null {
  const given = args[0];
  const variant =
    typeof given === 'string'
      ? given
      : given !== null && typeof given === 'object'
        ? Reflect.get(given, 'variant')
        : undefined;
  switch (variant ?? 'alpha-2') {
    case 'alpha-2':
      return 'alpha2';
    case 'alpha-3':
      return 'alpha3';
    case 'numeric':
      return 'numeric';
    default:
      return null;
  }
}

const LISTS: Readonly<Record<string, ListOf>> = {
  'location.countryCode': (faker, args) => {
    const field = countryCodeField(args);
    return field === null ? null : faker.definitions.location.country_code.map((entry) => entry[field]);
  },
  'location.country': (faker) => faker.definitions.location.country,
  'location.continent': (faker) => faker.definitions.location.continent,
  'finance.currencyCode': (faker) => faker.definitions.finance.currency.map((c) => c.code),
  'finance.currencyName': (faker) => faker.definitions.finance.currency.map((c) => c.name),
  'finance.currencyNumericCode': (faker) => faker.definitions.finance.currency.map((c) => c.numericCode),
};

/**
 * The distinct values `method` with `args` can give on `faker`'s locale that fit `room` characters,
 * or null when its values are not a closed list (or the locale lacks it).
 */
export function fakerPool(
  faker: Faker,
  method: string,
  args: readonly unknown[],
  room: number,
): string[] | null {
  const listOf = Object.hasOwn(LISTS, method) ? LISTS[method] : undefined;
  if (!listOf) return null;
  let list: readonly unknown[] | null;
  try {
    list = listOf(faker, args);
  } catch {
    // The locale's data lacks the list (faker throws on a missing definition).
    return null;
  }
  if (!list) return null;
  return [...new Set(list.filter((v): v is string => typeof v === 'string' && length(v) <= room))];
}

// Who and where a generated row is: one person (a first and a last name) and one place (a country
// and one of its cities) per row of a table, drawn by a hash of (seed, table, row) that every
// column of the table shares, so that a row's e-mail is written from its names, its full name is
// its first and last names, and its city lies in its country. The lists are narrowed once, when
// the table is compiled, to what fits every column that shows them: a first name too long for the
// shortest first-name column, a city or country name too long for its column, is never drawn
// rather than cut. A unique country column draws each country once (distinct-countries.ts) and
// the row's place lies in that country when the lists know its cities. Pure apart from the
// per-locale pools it reads.
import type { SeedColumn } from './column-kind.ts';
import { distinctCountries } from './distinct-countries.ts';
import { index, streamKey, word } from './hash.ts';
import type { Country, CountryCities, LocalePools, NamePool } from './locale-pools.ts';
import type { FakeValue } from './resolved.ts';

/** A column that shows part of the row's person or place, and the characters it holds. */
export interface PersonaColumn {
  fake: FakeValue;
  room: number;
  /** Its values must be distinct: a country column then shows each country once. */
  unique?: boolean;
}

export interface Place {
  country: Country;
  city: string;
  /** A state of the country, or null when the lists have none that fits. */
  state: string | null;
}

/** How a country is written in a column of `room` characters: a code when a name would not fit. */
export type CountryForm = 'alpha2' | 'alpha3' | 'name';

export function countryForm(room: number): CountryForm {
  if (room < 3) return 'alpha2';
  return room < 10 ? 'alpha3' : 'name';
}

/** The first of a country's names that fits `room` characters, or null. */
export function countryName(country: Country, room: number): string | null {
  return country.names.find((n) => length(n) <= room) ?? null;
}

export interface RowPersona {
  readonly pools: LocalePools;
  /** First and last names that fit every column showing them alone. */
  readonly firstNames: NamePool;
  readonly lastNames: NamePool;
  firstName(row: number, attempt: number): number;
  lastName(row: number, attempt: number): number;
  /** The row's place, or null when no city fits the table's city columns. */
  place(row: number, attempt: number): Place | null;
  /** The row's country: its place's when the table writes a city, any country otherwise. */
  country(row: number, attempt: number): Country;
}

/** Characters (code points), as the databases count a column's length. */
export function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The characters a text column holds (its type's length and its CHECKs'), Infinity when unbounded. */
export function columnRoom(seed: SeedColumn): number {
  return Math.min(
    seed.shape.maxLength ?? Number.POSITIVE_INFINITY,
    seed.limits.maxLength ?? Number.POSITIVE_INFINITY,
  );
}

const roomOf = (columns: readonly PersonaColumn[], fake: FakeValue) =>
  Math.min(Number.POSITIVE_INFINITY, ...columns.filter((c) => c.fake === fake).map((c) => c.room));

/** The names of `pool` that fit `room`; the names' initials when none does. */
function fitting(pool: NamePool, room: number): NamePool {
  if (room === Number.POSITIVE_INFINITY) return pool;
  const at = pool.names.flatMap((n, i) => (length(n) <= room ? [i] : []));
  if (at.length > 0) return { names: at.map((i) => pool.names[i]!), ascii: at.map((i) => pool.ascii[i]!) };
  return { names: pool.names.map((n) => [...n][0] ?? 'A'), ascii: pool.ascii };
}

interface PlaceRooms {
  city: number;
  state: number;
  countryName: number;
}

function fittingPlaces(list: readonly CountryCities[], rooms: PlaceRooms): CountryCities[] {
  const named = rooms.countryName !== Number.POSITIVE_INFINITY;
  return list.flatMap((entry) => {
    if (named && countryName(entry.country, rooms.countryName) === null) return [];
    const cities = entry.cities.filter((c) => length(c) <= rooms.city);
    const states = entry.states.filter((s) => length(s) <= rooms.state);
    return cities.length > 0 ? [{ country: entry.country, cities, states }] : [];
  });
}

/**
 * `draw` remembering its last answer: the columns of a row ask for the same person and place one
 * after the other (first name, last name, e-mail, full name…), which then costs one draw.
 */
function lastDrawn<T>(draw: (row: number, attempt: number) => T): (row: number, attempt: number) => T {
  let lastRow = -1;
  let lastAttempt = -1;
  let last: T;
  return (row, attempt) => {
    if (row !== lastRow || attempt !== lastAttempt) {
      last = draw(row, attempt);
      lastRow = row;
      lastAttempt = attempt;
    }
    return last;
  };
}

/** The smallest room of the columns that write a country by name (Infinity: none does). */
function countryNameRoom(columns: readonly PersonaColumn[]): number {
  const named = columns.filter((c) => c.fake === 'country' && countryForm(c.room) === 'name');
  return Math.min(Number.POSITIVE_INFINITY, ...named.map((c) => c.room));
}

/** The countries a table's columns can show: codes always fit, a name must fit where one is written. */
export function countriesShown(pools: LocalePools, columns: readonly PersonaColumn[]): readonly Country[] {
  const nameRoom = countryNameRoom(columns);
  if (nameRoom === Number.POSITIVE_INFINITY) return pools.countries;
  return pools.countries.filter((c) => countryName(c, nameRoom) !== null);
}

/**
 * The countries a unique country column can show once each: those shown, less any whose name, in a
 * unique column that writes names, is already another's (in English two countries are "Congo" in
 * a column of 10 to 20 characters). Its size is how many rows such a column holds.
 */
export function distinctCountryPool(pools: LocalePools, columns: readonly PersonaColumn[]): Country[] {
  const nameRooms = columns
    .filter((c) => c.fake === 'country' && c.unique === true && countryForm(c.room) === 'name')
    .map((c) => c.room);
  const taken = nameRooms.map(() => new Set<string>());
  return countriesShown(pools, columns).filter((country) => {
    const names = nameRooms.map((room) => countryName(country, room) ?? country.alpha3);
    if (names.some((name, i) => taken[i]!.has(name))) return false;
    names.forEach((name, i) => {
      taken[i]!.add(name);
    });
    return true;
  });
}

/**
 * The person and place of each row of a table whose `columns` show them; `rows` is how many rows
 * the run writes (a unique country column gives each of them a country of its own).
 */
export function rowPersona(
  pools: LocalePools,
  seed: number,
  table: string,
  columns: readonly PersonaColumn[],
  rows = Number.POSITIVE_INFINITY,
): RowPersona {
  const personKey = streamKey(seed, table, 'row:person');
  const placeKey = streamKey(seed, table, 'row:place');
  const firstNames = fitting(pools.firstNames, roomOf(columns, 'first_name'));
  const lastNames = fitting(pools.lastNames, roomOf(columns, 'last_name'));
  const nameRoom = countryNameRoom(columns);
  const rooms = { city: roomOf(columns, 'city'), state: roomOf(columns, 'state'), countryName: nameRoom };
  const [home] = pools.home ? fittingPlaces([pools.home], rooms) : [];
  const world = fittingPlaces(pools.world, rooms);
  const countries = countriesShown(pools, columns);
  // A country agrees with the row's city or state when the table writes one.
  const withCity = columns.some((c) => c.fake === 'city' || c.fake === 'state');
  const placesByCountry = new Map([...(home ? [home] : []), ...world].map((p) => [p.country.alpha2, p]));
  const distinctCountry = columns.some((c) => c.fake === 'country' && c.unique === true)
    ? distinctCountries(
        distinctCountryPool(pools, columns),
        new Set(placesByCountry.keys()),
        streamKey(seed, table, 'row:country'),
        rows,
      )
    : null;

  function placeEntry(row: number, attempt: number): CountryCities | undefined {
    // The row's own country's, when it is drawn once per row; none when the lists know no city of it.
    if (distinctCountry) return placesByCountry.get(distinctCountry(row, attempt).alpha2);
    // Half the rows at home when the locale has a home, the others anywhere the lists know.
    const atHome = home !== undefined && (world.length === 0 || (word(placeKey, row, attempt, 0) & 1) === 0);
    return atHome ? home : world[index(placeKey, row, world.length, attempt, 1)];
  }

  function place(row: number, attempt: number): Place | null {
    const entry = placeEntry(row, attempt);
    if (!entry) return null;
    return {
      country: entry.country,
      city: entry.cities[index(placeKey, row, entry.cities.length, attempt, 2)]!,
      state:
        entry.states.length > 0 ? entry.states[index(placeKey, row, entry.states.length, attempt, 4)]! : null,
    };
  }

  return {
    pools,
    firstNames,
    lastNames,
    firstName: lastDrawn((row, attempt) => index(personKey, row, firstNames.names.length, attempt, 0)),
    lastName: lastDrawn((row, attempt) => index(personKey, row, lastNames.names.length, attempt, 1)),
    place: lastDrawn(place),
    country: lastDrawn((row, attempt) => {
      if (distinctCountry) return distinctCountry(row, attempt);
      const at = withCity ? place(row, attempt) : null;
      return at ? at.country : countries[index(placeKey, row, countries.length, attempt, 3)]!;
    }),
  };
}

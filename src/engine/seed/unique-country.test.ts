// A unique country column (a unique constraint or index on it alone) is a closed list: every row
// gets a real ISO code (or name) no other row has, never a code made distinct by a row tag, and a
// scenario asking more rows than there are countries is refused when planned, naming the column.
// The row's city and state still lie in its country where the lists know its cities. A country
// column that is not unique is drawn as before.
import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { TableModel } from '../schema/model.ts';
import type { SeedDefinition } from './definition.ts';
import { localePools } from './locale-pools.ts';
import { planSeed } from './plan.ts';
import { tableProducer } from './table-rows.ts';

const text = (name: string, type: string) => makeColumn(name, { type, nullable: false });

function placesTable(countryType: string, unique: 'constraint' | 'index' | 'none'): TableModel {
  return makeTable('places', {
    columns: [
      makeColumn('id', { nullable: false }),
      text('country', countryType),
      text('city', 'varchar(40)'),
    ],
    primary_key: { name: 'places_pkey', columns: ['id'], deferrable: false, initially_deferred: false },
    unique_constraints:
      unique === 'constraint'
        ? [{ name: 'places_country_key', columns: ['country'], deferrable: false, initially_deferred: false }]
        : [],
    indexes: unique === 'index' ? [makeIndex('places_country_idx', ['country'], { unique: true })] : [],
  });
}

function plan(table: TableModel, rows: number, locale = 'en') {
  const definition: SeedDefinition = { locale, tables: [{ table: table.name, rows }] };
  return planSeed(makeSchema([table]), definition, () => false);
}

/**
 * The rows of the only table of a plan that has no problems, as column → value; `existingUnique`:
 * the values of its unique keys the table holds already.
 */
function produced(
  table: TableModel,
  rows: number,
  seed = 11,
  existingUnique?: Map<string, Set<string>>,
): Record<string, string>[] {
  const { plan: planned, problems } = plan(table, rows);
  expect(problems).toEqual([]);
  const producer = tableProducer(planned!.tables[0]!, {
    seed,
    locale: 'en',
    keyBase: new Map([['id', 0n]]),
    pools: new Map(),
    recorded: [],
    existingUnique,
  });
  // One row() a row: a tracked key counts every call.
  return Array.from({ length: rows }, (_, row) => {
    const values = producer.row(row);
    return Object.fromEntries(producer.columns.map((c, i) => [c, values[i] as string]));
  });
}

const pools = localePools('en');
const alpha2 = new Set(pools.countries.map((c) => c.alpha2));
const alpha3 = new Set(pools.countries.map((c) => c.alpha3));
const citiesOf = new Map(
  [pools.home, ...pools.world].flatMap((p) => (p ? [[p.country.alpha2, new Set(p.cities)] as const] : [])),
);

describe('a unique country column', () => {
  it('gets 200 distinct real alpha-2 codes for 200 rows, each row with a city of its country where one is known', () => {
    for (const unique of ['constraint', 'index'] as const) {
      const rows = produced(placesTable('character(2)', unique), 200);
      const countries = rows.map((r) => r.country!);
      expect(new Set(countries).size).toBe(200);
      for (const code of countries) expect(alpha2.has(code), code).toBe(true);
      const placed = rows.filter((r) => citiesOf.has(r.country!));
      // The countries with cities are drawn first: every one of them is some row's.
      expect(placed).toHaveLength(citiesOf.size);
      for (const r of placed)
        expect(citiesOf.get(r.country!)!.has(r.city!), `${r.city} in ${r.country}`).toBe(true);
    }
  });

  it('gets distinct alpha-3 codes in a char(3), and the same rows for the same seed', () => {
    const table = placesTable('character(3)', 'constraint');
    const rows = produced(table, 240);
    expect(new Set(rows.map((r) => r.country)).size).toBe(240);
    for (const r of rows) expect(alpha3.has(r.country!), r.country).toBe(true);
    expect(produced(table, 240)).toEqual(rows);
    expect(produced(table, 240, 12)).not.toEqual(rows);
  });

  it('gives the first rows countries with cities when fewer rows than such countries are asked', () => {
    const rows = produced(placesTable('character(2)', 'constraint'), 30);
    expect(new Set(rows.map((r) => r.country)).size).toBe(30);
    for (const r of rows)
      expect(citiesOf.get(r.country!)?.has(r.city!), `${r.city} in ${r.country}`).toBe(true);
  });

  it('keeps away from the countries a table holds already, on a second run', () => {
    const table = placesTable('character(2)', 'constraint');
    const first = produced(table, 100).map((r) => r.country!);
    // The table holds 40 of the countries this run would write first.
    const held = new Set(first.slice(0, 40));
    const again = produced(table, 100, 11, new Map([['places_country_key', held]])).map((r) => r.country!);
    expect(new Set(again).size).toBe(100);
    for (const code of again) {
      expect(alpha2.has(code), code).toBe(true);
      expect(held.has(code), code).toBe(false);
    }
  });

  it('is refused when planned for more rows than there are countries, naming the column', () => {
    const { plan: planned, problems } = plan(placesTable('character(2)', 'constraint'), 300);
    expect(planned).toBeNull();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      loc: ['definition', 'tables', 0, 'columns', 'country'],
      type: 'unique_capacity',
    });
    expect(problems[0]!.msg).toContain('public.places.country is unique');
    expect(problems[0]!.msg).toContain(`closed list of ${alpha2.size} for 300 rows`);
    expect(plan(placesTable('character(2)', 'index'), alpha2.size).problems).toEqual([]);
    expect(plan(placesTable('character(2)', 'index'), alpha2.size + 1).problems).toHaveLength(1);
  });

  it('writes names once each, leaving out a country whose name another has in that width', () => {
    // In English two countries are "Congo" in 10 to 20 characters: one of them is left out.
    const table = placesTable('character varying(20)', 'constraint');
    const fitting = pools.countries.flatMap((c) => c.names.find((n) => [...n].length <= 20) ?? []);
    const capacity = new Set(fitting).size;
    expect(capacity).toBe(fitting.length - 1);
    expect(plan(table, capacity).problems).toEqual([]);
    expect(plan(table, capacity + 1).problems[0]?.type).toBe('unique_capacity');
    const names = new Set(pools.countries.flatMap((c) => c.names));
    const rows = produced(table, capacity);
    expect(new Set(rows.map((r) => r.country)).size).toBe(capacity);
    for (const r of rows) {
      expect(names.has(r.country!), r.country).toBe(true);
      expect([...r.country!].length).toBeLessThanOrEqual(20);
    }
  });
});

describe('a country column that is not unique', () => {
  it('repeats codes freely and is not refused for more rows than countries', () => {
    const rows = produced(placesTable('character(2)', 'none'), 300);
    for (const r of rows) expect(alpha2.has(r.country!), r.country).toBe(true);
    expect(new Set(rows.map((r) => r.country)).size).toBeLessThan(300);
    for (const r of rows)
      expect(citiesOf.get(r.country!)?.has(r.city!), `${r.city} in ${r.country}`).toBe(true);
  });

  it('draws the same values as before unique country columns were drawn once each', () => {
    const rows = produced(placesTable('character(2)', 'none'), 6, 11);
    expect(rows.map((r) => `${r.country} ${r.city}`)).toEqual(PINNED_NON_UNIQUE);
  });
});

/** Rows 0 to 5 of the non-unique table for seed 11, as the seed engine wrote them before this change. */
const PINNED_NON_UNIQUE = [
  'IN Shahabad',
  'LU Grevenmacher',
  'IR ساری',
  'ES Fuenlabrada',
  'HU Géderlak',
  'US Ashburn',
];

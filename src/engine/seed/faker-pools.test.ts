// A unique column given a faker method whose values are a closed list (ISO currency and country
// codes, the locale's country names) gets each entry once, never a value the run's redraws could
// not find, and a scenario asking more rows than the list has is refused when planned, naming the
// column. Without a unique key the method is drawn by faker as before.
import { describe, expect, it } from 'vitest';
import { makeColumn, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import type { GeneratorSpec } from './definition.ts';
import { planSeed } from './plan.ts';
import { tableProducer } from './table-rows.ts';
import { localeFaker } from './values.ts';

function plan(type: string, spec: GeneratorSpec, rows: number, locale = 'en') {
  const table = makeTable('ledgers', {
    columns: [makeColumn('id', { nullable: false }), makeColumn('label', { type, nullable: false })],
    primary_key: { name: 'ledgers_pkey', columns: ['id'], deferrable: false, initially_deferred: false },
  });
  return planSeed(
    makeSchema([table]),
    { locale, tables: [{ table: 'ledgers', rows, columns: { label: spec } }] },
    () => false,
  );
}

function labels(type: string, spec: GeneratorSpec, rows: number, locale = 'en'): string[] {
  const { plan: planned, problems } = plan(type, spec, rows, locale);
  expect(problems).toEqual([]);
  const producer = tableProducer(planned!.tables[0]!, {
    seed: 3,
    locale,
    keyBase: new Map([['id', 0n]]),
    pools: new Map(),
    recorded: [],
  });
  return Array.from({ length: rows }, (_, row) => producer.row(row)[1] as string);
}

const faker = localeFaker('en');
const currencies = new Set(
  faker.definitions.location && faker.definitions.finance.currency.map((c) => c.code),
);

describe('a unique column given a faker method of a closed list', () => {
  it('gets every ISO currency code once, and is refused for more rows than there are', () => {
    const spec = { kind: 'faker', method: 'finance.currencyCode', unique: true };
    const codes = labels('character(3)', spec, currencies.size);
    expect(new Set(codes).size).toBe(currencies.size);
    for (const code of codes) expect(currencies.has(code), code).toBe(true);
    const { plan: planned, problems } = plan('character(3)', spec, 200);
    expect(planned).toBeNull();
    expect(problems).toEqual([
      {
        loc: ['definition', 'tables', 0, 'columns', 'label'],
        msg: `public.ledgers.label is unique, but its faker generator has only ${currencies.size} distinct values for 200 rows`,
        type: 'unique_capacity',
      },
    ]);
  });

  it('reads its arguments as faker does: alpha-3 country codes', () => {
    const alpha3 = new Set(faker.definitions.location.country_code.map((c) => c.alpha3));
    const spec = { kind: 'faker', method: 'location.countryCode', args: ['alpha-3'], unique: true };
    const codes = labels('character(3)', spec, 200);
    expect(new Set(codes).size).toBe(200);
    for (const code of codes) expect(alpha3.has(code), code).toBe(true);
    expect(plan('character(3)', spec, alpha3.size + 1).problems[0]?.type).toBe('unique_capacity');
  });

  it("counts the locale's list, and only the entries that fit the column", () => {
    const spec = { kind: 'faker', method: 'location.country', unique: true };
    const german = localeFaker('de').definitions.location.country;
    const fitting = new Set(german.filter((name) => [...name].length <= 12));
    expect(fitting.size).toBeLessThan(german.length);
    expect(plan('varchar(12)', spec, fitting.size, 'de').problems).toEqual([]);
    expect(plan('varchar(12)', spec, fitting.size + 1, 'de').problems[0]?.type).toBe('unique_capacity');
    const names = labels('varchar(12)', spec, fitting.size, 'de');
    expect(new Set(names)).toEqual(fitting);
  });

  it('is drawn by faker as before without a unique key: repeats and all', () => {
    const codes = labels('character(3)', { kind: 'faker', method: 'finance.currencyCode' }, 300);
    for (const code of codes) expect(currencies.has(code), code).toBe(true);
    expect(new Set(codes).size).toBeLessThan(currencies.size);
  });
});

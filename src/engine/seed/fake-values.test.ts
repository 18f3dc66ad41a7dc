// Inferred values that look real: each fits its column by construction (a short country column gets
// ISO codes, nothing is cut mid-word), first names come from the locale's whole lists, and the
// columns of a row agree (e-mail and full name from the row's names, city in the row's country),
// in Latin, Greek, Cyrillic and CJK locales; the same seed gives the same values.
import { describe, expect, it } from 'vitest';
import { makeColumn } from '../../../test/support/schema-models.ts';
import { columnShape } from '../anonymize/column-type.ts';
import type { ColumnModel } from '../schema/model.ts';
import type { SeedColumn } from './column-kind.ts';
import { asciiForm, localePools } from './locale-pools.ts';
import { FAKE_VALUES, type FakeValue } from './resolved.ts';
import { columnRoom, length, rowPersona } from './row-persona.ts';
import { compileValue, fakeRoom } from './values.ts';

const column = (name: string, type: string): ColumnModel => makeColumn(name, { type, nullable: false });

const seedColumn = (name: string, type: string): SeedColumn => ({
  column: column(name, type),
  family: columnShape(type).family,
  shape: columnShape(type),
  enumValues: null,
  limits: {},
});

/** The values of rows 0 … rows-1 of one table whose columns are `columns` (name → [type, fake]). */
function table(locale: string, columns: Record<string, [string, FakeValue]>, rows: number, seed = 7) {
  const entries = Object.entries(columns);
  const seeds = entries.map(([name, [type]]) => seedColumn(name, type));
  const persona = rowPersona(
    localePools(locale),
    seed,
    'public.people',
    entries.map(([, [, fake]], i) => ({ fake, room: columnRoom(seeds[i]!) })),
  );
  const fns = entries.map(([, [, fake]], i) =>
    compileValue(
      seeds[i]!,
      { kind: 'fake', fake },
      false,
      { seed, table: 'public.people', locale, rows, persona },
      () => -1,
    ),
  );
  return Array.from({ length: rows }, (_, row) =>
    Object.fromEntries(entries.map(([name], i) => [name, fns[i]!.fn(row, 0, []) as string])),
  );
}

describe('realistic seed values', () => {
  it('fit every width by construction: codes for short country columns, shorter forms, no cut words', () => {
    const pools = localePools('de');
    const codes2 = new Set(pools.countries.map((c) => c.alpha2));
    const codes3 = new Set(pools.countries.map((c) => c.alpha3));
    const words = new Set([...pools.words, ...pools.lorem].map((w) => w.toLowerCase()));
    for (const width of [1, 2, 3, 4, 5, 8, 12, 20, 30, 45, 60]) {
      const type = `character varying(${width})`;
      const rows = table('de', Object.fromEntries(FAKE_VALUES.map((f) => [f, [type, f]])), 200);
      for (const row of rows)
        for (const fake of FAKE_VALUES) {
          if (fake === 'uuid' || fake === 'json' || fake === 'boolean') continue;
          expect(length(row[fake]!), `${fake} in ${type}: ${row[fake]}`).toBeLessThanOrEqual(width);
        }
      if (width === 2) expect(rows.every((r) => codes2.has(r.country!))).toBe(true);
      if (width === 3) expect(rows.every((r) => codes3.has(r.country!))).toBe(true);
      if (width >= 4)
        for (const row of rows)
          for (const fake of ['title', 'sentence', 'word'] as const)
            for (const w of row[fake]!.replace(/\.$/, '').split(' '))
              expect(words.has(w.toLowerCase()), `${fake} in ${type}: "${row[fake]}"`).toBe(true);
      if (width >= 20) {
        expect(rows.every((r) => r.email!.endsWith('@example.com'))).toBe(true);
        expect(rows.every((r) => pools.firstNames.names.includes(r.first_name!))).toBe(true);
      }
    }
  });

  it("draws first names from the locale's whole lists: no four repeats in ten rows", () => {
    for (const locale of ['de', 'en', 'fr', 'ru']) {
      const rows = table(locale, { first_name: ['character varying(40)', 'first_name'] }, 1000);
      const names = rows.map((r) => r.first_name!);
      for (let at = 0; at + 10 <= names.length; at++) {
        const counts = new Map<string, number>();
        for (const n of names.slice(at, at + 10)) counts.set(n, (counts.get(n) ?? 0) + 1);
        expect(Math.max(...counts.values()), `${locale} rows ${at}..${at + 9}`).toBeLessThan(4);
      }
      expect(new Set(names).size, locale).toBeGreaterThan(
        Math.min(localePools(locale).firstNames.names.length, 1000) / 2,
      );
    }
  });

  it("agrees within a row: e-mail and full name from the row's names, the city in the row's country", () => {
    for (const locale of ['de', 'en', 'el', 'ru', 'ja', 'zh_CN']) {
      const pools = localePools(locale);
      const places = new Map(
        [pools.home, ...pools.world].flatMap((p) => (p ? [[p.country.alpha2, p] as const] : [])),
      );
      const citiesOf = new Map(
        [pools.home, ...pools.world].flatMap((p) =>
          p ? [[p.country.alpha2, new Set(p.cities)] as const] : [],
        ),
      );
      const rows = table(
        locale,
        {
          first_name: ['character varying(40)', 'first_name'],
          last_name: ['character varying(40)', 'last_name'],
          full_name: ['character varying(90)', 'full_name'],
          email: ['character varying(120)', 'email'],
          username: ['character varying(60)', 'username'],
          city: ['character varying(60)', 'city'],
          region: ['character varying(60)', 'state'],
          country: ['character(2)', 'country'],
          country_name: ['character varying(60)', 'country'],
        },
        300,
      );
      for (const r of rows) {
        expect(r.full_name, locale).toBe(`${r.first_name} ${r.last_name}`);
        const local = `${asciiForm(r.first_name!) || 'user'}.${asciiForm(r.last_name!) || 'user'}`;
        expect(r.email!.startsWith(local), `${locale}: ${r.email} for ${r.full_name}`).toBe(true);
        expect(r.email).toMatch(/^[a-z0-9.]+@example\.com$/);
        expect(r.username).toContain(asciiForm(r.last_name!) || 'user');
        expect(citiesOf.get(r.country!)?.has(r.city!), `${locale}: ${r.city} in ${r.country}`).toBe(true);
        const place = places.get(r.country!)!;
        expect(
          place.states.length > 0 ? place.states.includes(r.region!) : r.region === r.city,
          `${locale}: ${r.region} in ${r.country}`,
        ).toBe(true);
        const country = pools.countries.find((c) => c.alpha2 === r.country)!;
        expect(country.names).toContain(r.country_name);
      }
      // Half the rows at home when the locale has cities of its own, the others elsewhere.
      if (pools.home) {
        const home = rows.filter((r) => r.country === pools.home!.country.alpha2).length;
        expect(home).toBeGreaterThan(90);
        expect(home).toBeLessThan(210);
      }
    }
  });

  it('keeps room for the tag of a unique column: the name before it is whole', () => {
    const rows = 5000;
    const seed = seedColumn('first_name', 'character varying(10)');
    const persona = rowPersona(localePools('de'), 3, 'public.people', [
      { fake: 'first_name', room: fakeRoom(seed, 'first_name', true, rows) },
    ]);
    const { fn, distinct } = compileValue(
      seed,
      { kind: 'fake', fake: 'first_name' },
      true,
      { seed: 3, table: 'public.people', locale: 'de', rows, persona },
      () => -1,
    );
    expect(distinct).toBe(true);
    const names = new Set(localePools('de').firstNames.names);
    const values = Array.from({ length: rows }, (_, row) => fn(row, 0, []) as string);
    expect(new Set(values).size).toBe(rows);
    for (const value of values) {
      expect(length(value)).toBeLessThanOrEqual(10);
      expect(names.has(value.slice(0, value.lastIndexOf('-'))), value).toBe(true);
    }
  });

  it('gives the same values for the same seed, others for another seed', () => {
    const columns: Record<string, [string, FakeValue]> = {
      email: ['text', 'email'],
      city: ['text', 'city'],
      note: ['text', 'sentence'],
    };
    expect(table('de', columns, 50, 1)).toEqual(table('de', columns, 50, 1));
    expect(table('de', columns, 50, 1)).not.toEqual(table('de', columns, 50, 2));
  });
});

// Seeded rows that look real, on every column of the corpus's Sakila and Chinook (CORPUS_DIR), on
// PostgreSQL and MariaDB: each table planned with inferred generators, written by the run's own
// loader, read back, and every written column checked against what its generator promises. A value
// fits its column by construction (never longer than the column; a name, city or word drawn whole
// from the locale's lists, never cut), first names vary as the locale's lists allow, and the
// columns of a row agree: the e-mail and user name are written from the row's names, the city lies
// in the row's country. A column whose generator has no check here fails the test.
import { afterAll, describe, expect, it } from 'vitest';
import { corpusAvailable, loadMysqlSql, loadPostgresSql, readCorpus } from '../../../test/support/corpus.ts';
import { type TargetEngine, targetEngines } from '../../../test/support/engines.ts';
import { targetConfig } from '../../../test/support/targets.ts';
import { dialects } from '../../dialects/index.ts';
import type { DialectName } from '../../engine/schema/model.ts';
import type { SeedDefinition } from '../../engine/seed/definition.ts';
import { asciiForm, type LocalePools, localePools } from '../../engine/seed/locale-pools.ts';
import { planSeed } from '../../engine/seed/plan.ts';
import type { FakeValue, ResolvedColumn } from '../../engine/seed/resolved.ts';
import { columnRoom, length } from '../../engine/seed/row-persona.ts';
import type { PlannedTable } from '../../engine/seed/seed-plan.ts';
import { loadPlan } from './seed-load.ts';
import { populatedTables, readSeedInputs } from './seed-target.ts';

const SUITE = 'realistic seeds on Sakila and Chinook (seed.realism.test.ts)';
const corpusUp = corpusAvailable(SUITE);
const engines = await targetEngines(SUITE);

type Row = Record<string, unknown>;

/** A value as the text the generator wrote (a CHAR column pads on PostgreSQL). */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value.replace(/ +$/, '');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The row's value of the first column of the table whose generator is the fake `fake`. */
function sibling(planned: PlannedTable, row: Row, fake: FakeValue): string | null {
  const found = planned.columns.find((c) => c.generator.kind === 'fake' && c.generator.fake === fake);
  return found ? text(row[found.name]) : null;
}

const WORD_FAKES = new Set<FakeValue>(['title', 'sentence', 'word']);

/** What a fake value promises: drawn whole from the pools, and agreeing with the row's other columns. */
function checkFake(
  fake: FakeValue,
  value: string,
  row: Row,
  planned: PlannedTable,
  pools: LocalePools,
  room: number,
) {
  const first = sibling(planned, row, 'first_name');
  const last = sibling(planned, row, 'last_name');
  const cities = new Map(
    [pools.home, ...pools.world].flatMap((p) => (p ? [[p.country.alpha2, p.cities] as const] : [])),
  );
  if (WORD_FAKES.has(fake)) {
    const words = new Set([...pools.words, ...pools.lorem].map((w) => w.toLowerCase()));
    for (const w of value.replace(/\.$/, '').split(' ')) expect(words.has(w.toLowerCase()), value).toBe(true);
    return;
  }
  switch (fake) {
    case 'first_name':
      expect(pools.firstNames.names).toContain(value);
      return;
    case 'last_name':
      expect(pools.lastNames.names).toContain(value);
      return;
    case 'full_name':
      if (first && last)
        expect([`${first} ${last}`, `${[...first][0]}. ${last}`, last, first]).toContain(value);
      else expect(value).toMatch(/\S/);
      return;
    case 'email': {
      expect(value).toMatch(/^[a-z0-9.-]+@(example\.com|x\.test)$/);
      if (first && last) {
        const [f, l] = [asciiForm(first) || 'user', asciiForm(last) || 'user'];
        const local = value.slice(0, value.indexOf('@'));
        expect(
          [`${f}.${l}`, `${f[0]}.${l}`, l, f].some((form) => local.startsWith(form)),
          `${value} is not written from ${first} ${last}`,
        ).toBe(true);
      }
      return;
    }
    case 'username':
      if (last) expect(value).toContain((asciiForm(last) || 'user').slice(0, room));
      return;
    case 'city': {
      const all = [...cities.values()].flat();
      expect(all).toContain(value);
      const country = sibling(planned, row, 'country');
      if (country) {
        const found = pools.countries.find(
          (c) => c.alpha2 === country || c.alpha3 === country || c.names.includes(country),
        );
        expect(cities.get(found?.alpha2 ?? '')?.includes(value), `${value} is not a city of ${country}`).toBe(
          true,
        );
      }
      return;
    }
    case 'state': {
      // A state of the row's country, or its city where the lists know no states of it.
      const country = sibling(planned, row, 'country');
      const city = sibling(planned, row, 'city');
      const places = [pools.home, ...pools.world].filter((p) => p !== null);
      const of = places.find(
        (p) =>
          country !== null &&
          (p.country.alpha2 === country || p.country.alpha3 === country || p.country.names.includes(country)),
      );
      const allowed = of ? [...of.states, ...of.cities] : places.flatMap((p) => [...p.states, ...p.cities]);
      expect(
        allowed.includes(value) || (city !== null && value === city),
        `${value} is not a state of ${country}`,
      ).toBe(true);
      return;
    }
    case 'country': {
      const codes =
        room < 3
          ? pools.countries.map((c) => c.alpha2)
          : room < 10
            ? pools.countries.map((c) => c.alpha3)
            : null;
      if (codes) expect(codes).toContain(value);
      else
        expect(
          pools.countries.some((c) => c.names.includes(value)),
          value,
        ).toBe(true);
      return;
    }
    case 'company':
      expect(
        pools.lastNames.names.some((n) => value.startsWith(n)),
        value,
      ).toBe(true);
      return;
    case 'street_address':
      expect(
        pools.dictionary.streetNames.some((s) => value.includes(s)) || /^\d+\w*$/.test(value),
        value,
      ).toBe(true);
      return;
    case 'phone':
    case 'postal_code':
      expect(value).toMatch(/^[0-9A-Z +()\-.x]+$/);
      return;
    case 'code':
      expect(value).toMatch(/^[A-Z0-9]+$/);
      return;
    case 'url':
      expect(value).toMatch(/^https?:\/\/[a-z0-9.]+\/$/);
      return;
    case 'uuid':
      expect(value).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      return;
    case 'json':
      expect(typeof JSON.parse(value)).toBe('object');
      return;
    case 'boolean':
      expect(['t', 'f', 'true', 'false', '1', '0']).toContain(value);
      return;
  }
}

/** Every written column of `planned`, each value checked against its generator. */
function checkTable(planned: PlannedTable, rows: Row[], pools: LocalePools): void {
  expect(rows.length, planned.key).toBe(planned.rows);
  for (const c of planned.columns) {
    // Inferred generators are what this checks; a given one (Sakila's film.fulltext) its trigger rewrites.
    if (c.origin === 'given') continue;
    const seed = planned.seedColumns.get(c.name)!;
    const room = columnRoom(seed);
    const values = rows.map((r) => text(r[c.name]));
    const where = `${planned.key}.${c.name} (${c.origin})`;
    for (const [i, value] of values.entries()) {
      if (value === null) {
        expect(seed.column.nullable || c.generator.kind === 'reference', where).toBe(true);
        continue;
      }
      if (seed.family === 'text') expect(length(value), `${where}: "${value}"`).toBeLessThanOrEqual(room);
      checkValue(c, value, rows[i]!, planned, pools, room, where);
    }
    if (c.generator.kind === 'fake' && c.generator.fake === 'first_name') {
      // No four repeats in ten rows, and as many names as the lists give.
      for (let at = 0; at + 10 <= values.length; at += 10) {
        const counts = new Map<string | null, number>();
        for (const v of values.slice(at, at + 10)) counts.set(v, (counts.get(v) ?? 0) + 1);
        expect(Math.max(...counts.values()), `${where}, rows ${at}..${at + 9}`).toBeLessThan(4);
      }
      expect(new Set(values).size, where).toBeGreaterThan(
        Math.min(values.length, pools.firstNames.names.length) / 2,
      );
    }
  }
}

function checkValue(
  c: ResolvedColumn,
  value: string,
  row: Row,
  planned: PlannedTable,
  pools: LocalePools,
  room: number,
  where: string,
): void {
  const g = c.generator;
  switch (g.kind) {
    case 'fake':
      checkFake(g.fake, value, row, planned, pools, room);
      return;
    case 'key':
    case 'reference':
    case 'sequence':
      expect(value, where).toMatch(/^-?\d+$/);
      return;
    case 'int':
      expect(Number(value) >= g.min && Number(value) <= g.max, `${where}: ${value}`).toBe(true);
      return;
    case 'float':
      expect(Number(value) >= g.min && Number(value) <= g.max, `${where}: ${value}`).toBe(true);
      return;
    case 'date':
    case 'timestamp':
      expect(Number.isNaN(Date.parse(value)), `${where}: ${value}`).toBe(false);
      return;
    case 'time':
      expect(value, where).toMatch(/^\d\d:\d\d:\d\d$/);
      return;
    case 'choice':
      expect(
        g.values.map((v) => v.replace(/ +$/, '')),
        where,
      ).toContain(value);
      return;
    case 'constant':
      expect(value, where).toBe(g.value);
      return;
    default:
      throw new Error(`${where}: no check for a ${g.kind} generator`);
  }
}

async function seedAndCheck(
  engine: TargetEngine,
  dialectName: DialectName,
  load: (url: string) => Promise<void>,
  definition: SeedDefinition,
  seed: number,
  opened: { drop(): Promise<void> }[],
): Promise<number> {
  const database = await engine.create();
  opened.push(database);
  await load(database.url);
  const handle = await dialects[dialectName].open(targetConfig(database.url));
  try {
    const model = await handle.introspect();
    const populated = await populatedTables(handle);
    const { plan, problems } = planSeed(model, definition, (key) => populated.has(key));
    expect(problems).toEqual([]);
    const seeded = await readSeedInputs(handle, model, plan!, seed, populated);
    const session = await handle.rowSession();
    try {
      await loadPlan({
        session,
        dialect: handle.sql,
        plan: plan!,
        seeded,
        progress: { batch: async () => {} },
      });
    } finally {
      await session.close();
    }
    const pools = localePools(plan!.locale);
    const q = (name: string) => handle.sql.quoteIdent(name);
    let checked = 0;
    for (const planned of plan!.tables) {
      const table = planned.table.schema
        ? `${q(planned.table.schema)}.${q(planned.table.name)}`
        : q(planned.table.name);
      const key = planned.primaryKey.map(q).join(', ');
      // Only the rows this run wrote: Sakila keeps one store and its staff from before.
      const rows = (await engine.query(database.url, `select * from ${table} order by ${key || '1'}`)).slice(
        -planned.rows,
      );
      checkTable(planned, rows, pools);
      checked += planned.columns.length;
    }
    return checked;
  } finally {
    await handle.close();
  }
}

const CHINOOK: [string, string, number][] = [
  ['artist', 'Artist', 100],
  ['album', 'Album', 150],
  ['genre', 'Genre', 25],
  ['media_type', 'MediaType', 5],
  ['track', 'Track', 500],
  ['playlist', 'Playlist', 20],
  ['playlist_track', 'PlaylistTrack', 600],
  ['employee', 'Employee', 30],
  ['customer', 'Customer', 400],
  ['invoice', 'Invoice', 800],
  ['invoice_line', 'InvoiceLine', 1000],
];

const SAKILA: [string, number][] = [
  ['actor', 200],
  ['category', 16],
  ['language', 6],
  ['film', 300],
  ['film_actor', 600],
  ['film_category', 300],
  ['country', 50],
  ['city', 300],
  ['address', 400],
  ['staff', 4],
  ['customer', 400],
  ['inventory', 600],
  ['rental', 800],
  ['payment', 800],
];

/** One store and its manager, as a DBA writes a NOT NULL cycle (the store ↔ staff cycle). */
const SAKILA_STORE = `
  insert into country (country_id, country) values (1, 'Freedonia');
  insert into city (city_id, city, country_id) values (1, 'Fredville', 1);
  insert into address (address_id, address, district, city_id, phone) values (1, '1 Main St', 'Centre', 1, '555');
  insert into staff (staff_id, first_name, last_name, address_id, store_id, username) values (1, 'Mo', 'Boss', 1, 1, 'mo');
  insert into store (store_id, manager_staff_id, address_id) values (1, 1, 1);`;

describe.skipIf(!corpusUp)('realistic seeds on the corpus', () => {
  const opened: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const d of opened) await d.drop().catch(() => {});
  });

  it.skipIf(!engines.postgresql.up)(
    'Chinook on PostgreSQL (de): every column fits, names vary, rows agree',
    async () => {
      const definition = { locale: 'de', tables: CHINOOK.map(([name, , rows]) => ({ table: name, rows })) };
      const load = async (url: string) => {
        await loadPostgresSql(url, readCorpus('chinook', 'postgres.sql'));
        await loadPostgresSql(url, `truncate ${CHINOOK.map(([name]) => name).join(', ')} cascade`);
      };
      expect(
        await seedAndCheck(engines.postgresql, 'postgresql', load, definition, 36, opened),
      ).toBeGreaterThan(50);
    },
  );

  it.skipIf(!engines.mysql.up)(
    'Chinook on MariaDB (el): every column fits, names vary, rows agree',
    async () => {
      const definition = { locale: 'el', tables: CHINOOK.map(([, name, rows]) => ({ table: name, rows })) };
      const load = async (url: string) => {
        await loadMysqlSql(url, readCorpus('chinook', 'mysql.sql'));
        await loadMysqlSql(
          url,
          `set foreign_key_checks = 0; ${CHINOOK.map(([, name]) => `delete from \`${name}\`;`).join(' ')} set foreign_key_checks = 1;`,
        );
      };
      expect(await seedAndCheck(engines.mysql, 'mysql', load, definition, 36, opened)).toBeGreaterThan(50);
    },
  );

  it.skipIf(!engines.postgresql.up)(
    'Sakila on PostgreSQL (en): every column fits, names vary, rows agree',
    async () => {
      const definition = {
        locale: 'en',
        tables: SAKILA.map(([table, rows]) => ({
          table,
          rows,
          ...(table === 'film' ? { columns: { fulltext: { kind: 'constant' as const, value: '' } } } : {}),
        })),
      };
      const load = async (url: string) => {
        await loadPostgresSql(url, readCorpus('sakila', 'postgres-schema.sql'));
        await loadPostgresSql(
          url,
          `set session_replication_role = replica; ${SAKILA_STORE} set session_replication_role = origin;`,
        );
      };
      expect(
        await seedAndCheck(engines.postgresql, 'postgresql', load, definition, 7, opened),
      ).toBeGreaterThan(50);
    },
  );

  it.skipIf(!engines.mysql.up)(
    'Sakila on MariaDB (fr): every column fits, names vary, rows agree',
    async () => {
      const definition = { locale: 'fr', tables: SAKILA.map(([table, rows]) => ({ table, rows })) };
      const load = async (url: string) => {
        await loadMysqlSql(url, readCorpus('sakila', 'mysql-schema.sql'), { dropQualifier: 'sakila' });
        await loadMysqlSql(url, `set foreign_key_checks = 0; ${SAKILA_STORE} set foreign_key_checks = 1;`);
      };
      expect(await seedAndCheck(engines.mysql, 'mysql', load, definition, 11, opened)).toBeGreaterThan(50);
    },
  );
});

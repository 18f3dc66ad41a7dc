// Seed runs on real schemas from the shared corpus, through the HTTP API and the real worker:
// Chinook on PostgreSQL and on MariaDB (emptied first), every table seeded, with a self-reference
// (employee.reports_to), a composite primary key of two references (playlist_track) and the keys
// of every parent written by the service; Sakila on PostgreSQL (enums, a domain, arrays,
// tsvector with its trigger, inheritance partitions with CHECKed dates, a composite unique index),
// whose store ↔ staff NOT NULL cycle is refused naming it, then seeded beside one existing store;
// Sakila on MariaDB the same way (YEAR, ENUM and SET columns; film_text is left to film's trigger).
// Every foreign key is valid afterwards, and the same seed gives the same rows in another database.

import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { corpusAvailable, loadMysqlSql, loadPostgresSql, readCorpus } from '../../../test/support/corpus.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { tableChecksum } from '../../../test/support/target-query.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const BASE = `${API}/seed/scenarios`;
const SUITE = 'seeds on Sakila and Chinook (seed.corpus.test.ts)';
const corpusUp = corpusAvailable(SUITE);
const engines = await targetEngines(SUITE);

const CHINOOK_ROWS: [string, string, number][] = [
  // [PostgreSQL name, MySQL name, rows]
  ['artist', 'Artist', 150],
  ['album', 'Album', 300],
  ['genre', 'Genre', 25],
  ['media_type', 'MediaType', 5],
  ['track', 'Track', 2000],
  ['playlist', 'Playlist', 20],
  ['playlist_track', 'PlaylistTrack', 3000],
  ['employee', 'Employee', 30],
  ['customer', 'Customer', 400],
  ['invoice', 'Invoice', 1500],
  ['invoice_line', 'InvoiceLine', 5000],
];

const POSTGRES_FOREIGN_KEYS = `
select c.conname as name, c.convalidated as valid from pg_constraint c
 join pg_namespace n on n.oid = c.connamespace where c.contype = 'f' and n.nspname = 'public'`;

describe.skipIf(!corpusUp)('seeds on the corpus', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];
  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({ org: 'Corpus seeds', project: 'Corpus' }));
  });
  afterAll(() => closeSuite(t, databases));

  async function database(engine: typeof engines.postgresql, load: (url: string) => Promise<void>) {
    const created = await engine.create();
    databases.push(created);
    await load(created.url);
    const answer = await owner.post(`${API}/connections`, connectionBody(projectId, created.url));
    expect(answer.status).toBe(201);
    return { url: created.url, connectionId: answer.body.id as string };
  }
  const save = (connectionId: string, definition: unknown, seed: number) =>
    owner.post(BASE, {
      project_id: projectId,
      connection_id: connectionId,
      name: `corpus-${Math.random().toString(36).slice(2)}`,
      definition,
      seed,
    });
  async function seedIt(connectionId: string, definition: unknown, seed: number) {
    const saved = await save(connectionId, definition, seed);
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const started = await owner.post(`${BASE}/${saved.body.id}/run`);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    let run = started.body;
    // Longer than the shared helper waits: a few thousand rows a table on a shared machine.
    for (let i = 0; i < 600 && !['succeeded', 'failed', 'cancelled'].includes(run.status); i++) {
      await sleep(200);
      run = (await owner.get(`${API}/runs/${started.body.id}`)).body;
    }
    expect(run.error ?? null, JSON.stringify(run)).toBeNull();
    return run;
  }

  const chinook = {
    postgresql: async (url: string) => {
      await loadPostgresSql(url, readCorpus('chinook', 'postgres.sql'));
      await loadPostgresSql(url, `truncate ${CHINOOK_ROWS.map(([name]) => name).join(', ')} cascade`);
    },
    mysql: async (url: string) => {
      await loadMysqlSql(url, readCorpus('chinook', 'mysql.sql'));
      await loadMysqlSql(
        url,
        `set foreign_key_checks = 0; ${CHINOOK_ROWS.map(([, name]) => `delete from \`${name}\`;`).join(' ')} set foreign_key_checks = 1;`,
      );
    },
  };

  for (const engine of [engines.postgresql, engines.mysql]) {
    const mysql = engine.dialect === 'mysql';
    const name = (row: [string, string, number]) => (mysql ? row[1] : row[0]);
    const definition = { tables: CHINOOK_ROWS.map((row) => ({ table: name(row), rows: row[2] })) };

    it.skipIf(!engine.up)(
      `Chinook on ${engine.name}: every table seeded from empty, keys valid, the same seed the same rows`,
      async () => {
        const first = await database(engine, chinook[engine.dialect]);
        const run = await seedIt(first.connectionId, definition, 2024);
        expect(run.result.rows_total).toBe(CHINOOK_ROWS.reduce((n, row) => n + row[2], 0));
        const q = (sql: string) => engine.query(first.url, sql);
        for (const row of CHINOOK_ROWS)
          expect(
            Number((await q(`select count(*) as n from ${mysql ? `\`${row[1]}\`` : row[0]}`))[0]?.n),
            row[0],
          ).toBe(row[2]);
        const [employee, reportsTo, employeeId] = mysql
          ? ['`Employee`', '`ReportsTo`', '`EmployeeId`']
          : ['employee', 'reports_to', 'employee_id'];
        // The self-reference was closed by the UPDATE: a tree (every manager an earlier employee), one root.
        const managed = await q(
          `select ${employeeId} as id, ${reportsTo} as boss from ${employee} where ${reportsTo} is not null`,
        );
        expect(managed.length).toBe(29);
        expect(managed.every((r) => Number(r.boss) < Number(r.id))).toBe(true);
        if (mysql) {
          const orphans = await q(
            'select count(*) as n from `PlaylistTrack` p left join `Track` t on t.`TrackId` = p.`TrackId` where t.`TrackId` is null',
          );
          expect(Number(orphans[0]?.n)).toBe(0);
        } else expect((await q(POSTGRES_FOREIGN_KEYS)).every((k) => k.valid === true)).toBe(true);

        const second = await database(engine, chinook[engine.dialect]);
        await seedIt(second.connectionId, definition, 2024);
        for (const row of CHINOOK_ROWS)
          expect((await tableChecksum(second.url, name(row))).sum, row[0]).toBe(
            (await tableChecksum(first.url, name(row))).sum,
          );
      },
    );
  }

  it.skipIf(!engines.postgresql.up)(
    'Sakila on PostgreSQL: the store ↔ staff NOT NULL cycle refused, every other table seeded beside one store',
    async () => {
      const sakila = await database(engines.postgresql, async (url) => {
        await loadPostgresSql(url, readCorpus('sakila', 'postgres-schema.sql'));
        // One store and its manager, as a DBA writes a NOT NULL cycle: with the key triggers off.
        await loadPostgresSql(
          url,
          `set session_replication_role = replica;
         insert into country (country_id, country) values (1, 'Freedonia');
         insert into city (city_id, city, country_id) values (1, 'Fredville', 1);
         insert into address (address_id, address, district, city_id, phone) values (1, '1 Main St', 'Centre', 1, '555');
         insert into staff (staff_id, first_name, last_name, address_id, store_id, username) values (1, 'Mo', 'Boss', 1, 1, 'mo');
         insert into store (store_id, manager_staff_id, address_id) values (1, 1, 1);
         set session_replication_role = origin;`,
        );
      });
      const tables = (withStore: boolean) => ({
        locale: 'en',
        tables: [
          { table: 'actor', rows: 200 },
          { table: 'category', rows: 16 },
          { table: 'language', rows: 6 },
          { table: 'film', rows: 500, columns: { fulltext: { kind: 'constant', value: '' } } },
          { table: 'film_actor', rows: 2000 },
          { table: 'film_category', rows: 500 },
          { table: 'country', rows: 50 },
          { table: 'city', rows: 300 },
          { table: 'address', rows: 600 },
          { table: 'staff', rows: 4 },
          ...(withStore ? [{ table: 'store', rows: 2 }] : []),
          { table: 'customer', rows: 500 },
          { table: 'inventory', rows: 2000 },
          { table: 'rental', rows: 4000 },
          { table: 'payment', rows: 500 },
          ...[1, 2, 3, 4, 5, 6].map((m) => ({ table: `payment_p2007_0${m}`, rows: 300 })),
        ],
      });
      const refused = await save(sakila.connectionId, tables(true), 7);
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body)).toMatch(
        /NOT NULL foreign keys of public\.staff, public\.store form a cycle/,
      );

      const run = await seedIt(sakila.connectionId, tables(false), 7);
      expect(run.result.rows_total).toBe(11_176 + 1800);
      const q = (sql: string) => engines.postgresql.query(sakila.url, sql);
      expect((await q(POSTGRES_FOREIGN_KEYS)).every((k) => k.valid === true)).toBe(true);
      expect(Number((await q('select count(*) as n from staff'))[0]?.n)).toBe(5);
      // The partitions' CHECKs held: each month's rows are in its month.
      expect(
        await q(
          "select payment_id from payment_p2007_03 where payment_date < '2007-03-01' or payment_date >= '2007-04-01'",
        ),
      ).toEqual([]);
      // The trigger filled the full-text column from the generated title and description.
      expect(Number((await q("select count(*) as n from film where fulltext <> ''::tsvector"))[0]?.n)).toBe(
        500,
      );
      // Keys were written above the existing ones, and the sequences moved past them.
      expect(Number((await q('select min(staff_id) as m from staff where staff_id > 1'))[0]?.m)).toBe(2);
      await q("insert into actor (first_name, last_name) values ('New', 'Actor')");
    },
  );

  it.skipIf(!engines.mysql.up)(
    'Sakila on MariaDB: every table but store (the NOT NULL cycle) and film_text (its trigger) seeded',
    async () => {
      const sakila = await database(engines.mysql, async (url) => {
        await loadMysqlSql(url, readCorpus('sakila', 'mysql-schema.sql'), { dropQualifier: 'sakila' });
        await loadMysqlSql(
          url,
          `set foreign_key_checks = 0;
         insert into country (country_id, country) values (1, 'Freedonia');
         insert into city (city_id, city, country_id) values (1, 'Fredville', 1);
         insert into address (address_id, address, district, city_id, phone) values (1, '1 Main St', 'Centre', 1, '555');
         insert into staff (staff_id, first_name, last_name, address_id, store_id, username) values (1, 'Mo', 'Boss', 1, 1, 'mo');
         insert into store (store_id, manager_staff_id, address_id) values (1, 1, 1);
         set foreign_key_checks = 1;`,
        );
      });
      const definition = {
        tables: [
          { table: 'actor', rows: 200 },
          { table: 'category', rows: 16 },
          { table: 'language', rows: 6 },
          { table: 'film', rows: 500 },
          { table: 'film_actor', rows: 2000 },
          { table: 'film_category', rows: 500 },
          { table: 'country', rows: 50 },
          { table: 'city', rows: 300 },
          { table: 'address', rows: 600 },
          { table: 'staff', rows: 4 },
          { table: 'customer', rows: 500 },
          { table: 'inventory', rows: 2000 },
          { table: 'rental', rows: 4000 },
          { table: 'payment', rows: 4000 },
        ],
      };
      const run = await seedIt(sakila.connectionId, definition, 11);
      expect(run.result.rows_total).toBe(14_676);
      const q = (sql: string) => engines.mysql.query(sakila.url, sql);
      // film's trigger wrote film_text for every film; the keys the service wrote followed the existing ones.
      expect(Number((await q('select count(*) as n from film_text'))[0]?.n)).toBe(500);
      expect(Number((await q('select min(staff_id) as m from staff where staff_id > 1'))[0]?.m)).toBe(2);
      expect(
        await q(
          'select count(*) as n from rental r left join inventory i on i.inventory_id = r.inventory_id where i.inventory_id is null',
        ),
      ).toEqual([{ n: 0 }]);
      expect(await q("select film_id from film where rating not in ('G','PG','PG-13','R','NC-17')")).toEqual(
        [],
      );
      // AUTO_INCREMENT moved past the written keys by itself.
      await q("insert into actor (first_name, last_name) values ('New', 'Actor')");
    },
  );
});

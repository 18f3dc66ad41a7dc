// The in-place anonymization run end to end on the real PostgreSQL and MariaDB test servers: every
// rule applied (checked value by value against the rows before), one key rule propagated to the
// referencing table so joins still match and the foreign key stays valid, a group that fails halfway
// left untouched, strict mode's 409, and who may start a run.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { expectFivePerMinute } from '../../../test/support/endpoint-limits.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';

const API = '/api/v1';
const BASE = `${API}/anonymize/configs`;
const engines = await targetEngines('anonymization runs (anonymize-run.test.ts)');

const ROWS =
  'insert into customers (id, email, full_name, phone, score) values ' +
  "(1, 'ada@lovelace.org', 'Ada Lovelace', '+44 20 7946 0018', 3), " +
  "(2, 'bob@builder.net', 'Bob Builder', '+49 151 2345 6789', 5), " +
  "(3, 'cy@cyborg.io', 'Cy Borg', '+33 1 42 68 53 00', 7), " +
  "(4, 'di@example.com', 'Di Prince', '+1 202 555 0143', 11), " +
  "(5, 'ed@example.com', 'Ed Wood', '+1 202 555 0199', 13); " +
  'insert into orders (id, customer_email, total) values ' +
  "(10, 'ada@lovelace.org', 12.50), (11, 'bob@builder.net', 3.99), (12, 'ada@lovelace.org', 1.00), " +
  "(13, 'ed@example.com', 7.00), (14, null, 2.00); " +
  "insert into accounts (id, login) values (1, 'one@a.org'), (2, 'two@a.org'); " +
  "insert into sessions (id, login) values (1, 'one@a.org'), (2, 'two@a.org');";

const ENGINES = [
  {
    ...engines.postgresql,
    schema:
      'create table customers (id bigint primary key, email varchar(120) not null unique, full_name text, ' +
      'phone text, score integer); ' +
      'create table orders (id bigint primary key, customer_email varchar(200) constraint orders_customer_fk ' +
      'references customers(email), total numeric(10,2)); ' +
      'create table accounts (id int primary key, login varchar(100) not null unique); ' +
      'create table sessions (id int primary key, login varchar(100) constraint sessions_login_fk ' +
      "references accounts(login) check (login like '%@%')); " +
      ROWS,
    /** A session of another user holding a row of `orders` locked, and whether a session waits on it. */
    holder: async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('begin');
      await client.query('select id from orders where id = 10 for update');
      return {
        // A session of this database only: the server is shared with other suites, whose waits do not count.
        waited: async () =>
          (
            await client.query(
              "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
            )
          ).rows[0].n > 0,
        release: async () => {
          await client.query('commit');
          await client.end();
        },
      };
    },
    fkValid: (name: string) => `select convalidated as valid from pg_constraint where conname = '${name}'`,
  },
  {
    ...engines.mysql,
    schema:
      'create table customers (id bigint primary key, email varchar(120) not null unique, full_name text, ' +
      'phone text, score int); ' +
      'create table orders (id bigint primary key, customer_email varchar(200), total decimal(10,2), ' +
      'constraint orders_customer_fk foreign key (customer_email) references customers(email)); ' +
      'create table accounts (id int primary key, login varchar(100) not null unique); ' +
      'create table sessions (id int primary key, login varchar(100), ' +
      "constraint sessions_login_fk foreign key (login) references accounts(login), check (login like '%@%')); " +
      ROWS,
    holder: async (url: string) => {
      const client = await mysql.createConnection(url);
      await client.query('begin');
      await client.query('select id from orders where id = 10 for update');
      return {
        waited: async () => {
          const [rows] = await client.query(
            "select count(*) as n from information_schema.processlist where info like 'SELECT COUNT(*) AS n FROM%orders%FOR UPDATE'",
          );
          return Number((rows as { n: unknown }[])[0]?.n) > 0;
        },
        release: async () => {
          await client.query('commit');
          await client.end();
        },
      };
    },
    fkValid: (name: string) =>
      `select 1 as valid from information_schema.referential_constraints where constraint_name = '${name}' and constraint_schema = database()`,
  },
];

describe('anonymization runs', () => {
  let t: TestApp;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    t = await createTestApp({ work: true });
  });
  afterAll(async () => {
    await t?.close();
    for (const database of databases) await database.drop();
  });

  for (const engine of ENGINES) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let owner: Client;
      let orgId: string;
      let projectId: string;
      let connectionId: string;
      let url: string;
      const table = (name: string) => (engine.dialect === 'postgresql' ? `public.${name}` : name);
      const query = (sql: string) => engine.query(url, sql);

      beforeAll(async () => {
        ({ orgId, owner } = await t.createOrg(`Anon run ${engine.name}`));
        projectId = (await owner.post(`${API}/projects`, { name: 'Anonymize run' })).body.id;
        const created = await engine.create();
        databases.push(created);
        url = created.url;
        await engine.load(url, engine.schema);
        const connection = await owner.post(`${API}/connections`, connectionBody(projectId, url));
        expect(connection.status).toBe(201);
        connectionId = connection.body.id;
      });

      const create = async (rules: unknown[], extra: Record<string, unknown> = {}) => {
        const created = await owner.post(BASE, {
          project_id: projectId,
          connection_id: connectionId,
          name: `cfg-${Math.random().toString(36).slice(2)}`,
          rules,
          ...extra,
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        return created.body.id as string;
      };
      const finished = async (runId: string) => {
        const run = await waitForRun(owner, runId, ['succeeded', 'failed', 'cancelled']);
        if (String(run.error).startsWith('Internal error'))
          console.error(t.logs.filter((line) => line.includes(runId)).join('\n'));
        return run;
      };

      it('answers 409 in strict mode naming the personal columns no rule covers, starting nothing', async () => {
        const id = await create(
          [{ table: 'customers', column: 'email', transformer: 'hash', options: { length: 32 } }],
          { strict: true },
        );
        const refused = await owner.post(`${BASE}/${id}/run`);
        expect(refused.status).toBe(409);
        expect(JSON.stringify(refused.body)).toMatch(/customers\.full_name/);
        expect(JSON.stringify(refused.body)).toMatch(/customers\.phone/);
        expect(JSON.stringify(refused.body)).not.toMatch(/customers\.email/);
      });

      it('leaves a group untouched when a write fails halfway (a CHECK the propagated values break)', async () => {
        const before = await query('select id, login from accounts order by id');
        const id = await create([
          { table: 'accounts', column: 'login', transformer: 'hash', options: { length: 32 } },
        ]);
        const started = await owner.post(`${BASE}/${id}/run`);
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        const run = await finished(started.body.id);
        expect(run.status).toBe('failed');
        expect(run.error).toMatch(/check|constraint/i);
        expect(run.error).toMatch(/untouched/);
        expect(run.result).toMatchObject({
          rows_total: 0,
          tables_not_done: [table('accounts'), table('sessions')],
        });
        expect(await query('select id, login from accounts order by id')).toEqual(before);
        expect(await query('select id, login from sessions order by id')).toEqual(before);
        expect((await query(engine.fkValid('sessions_login_fk')))[0]?.valid).toBeTruthy();
      });

      it('a cancelled run stops at a batch boundary: the group rolls back, keys intact', async () => {
        const customers = 'select id, email, full_name, phone, score from customers order by id';
        const orders = 'select id, customer_email from orders order by id';
        const before = [await query(customers), await query(orders)];
        const id = await create([
          { table: 'customers', column: 'email', transformer: 'hash', options: { length: 32 } },
        ]);
        const held = await engine.holder(url);
        try {
          // The run waits on this lock while locking writes out, which leaves time to cancel it.
          const started = await owner.post(`${BASE}/${id}/run`);
          expect(started.status).toBe(202);
          for (let i = 0; !(await held.waited()); i++) {
            if (i > 200)
              throw new Error(
                `the run never waited on the lock: ${JSON.stringify((await owner.get(`${API}/runs/${started.body.id}`)).body)}`,
              );
            await sleep(50);
          }
          expect((await owner.post(`${API}/runs/${started.body.id}/cancel`)).status).toBe(200);
          await held.release();
          const cancelled = await finished(started.body.id);
          expect(cancelled.status).toBe('cancelled');
          // The cancelled run names what it did not do (nothing was done: the group rolled back).
          expect(cancelled.result).toMatchObject({
            rows_total: 0,
            tables_done: [],
            tables_not_done: [table('customers'), table('orders')],
          });
        } catch (error) {
          await held.release().catch(() => {});
          throw error;
        }
        expect([await query(customers), await query(orders)]).toEqual(before);
        expect((await query(engine.fkValid('orders_customer_fk')))[0]?.valid).toBeTruthy();
      });

      it('applies every rule in place, set-based, keeping joins and the propagated foreign key valid', async () => {
        const before = await query('select id, email, full_name, phone, score from customers order by id');
        const joinedBefore = await query(
          'select o.id as order_id, c.id as customer_id from orders o join customers c on c.email = o.customer_email order by o.id',
        );
        const id = await create([
          { table: 'customers', column: 'email', transformer: 'hash', options: { length: 32 } },
          { table: 'customers', column: 'full_name', transformer: 'fake', options: { kind: 'full_name' } },
          { table: 'customers', column: 'phone', transformer: 'mask', options: { keep_end: 2 } },
          { table: 'customers', column: 'score', transformer: 'shuffle' },
        ]);
        const started = await owner.post(`${BASE}/${id}/run`);
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        expect(started.body).toMatchObject({ kind: 'anonymize_run', status: expect.any(String) });
        const run = await finished(started.body.id);
        expect(run.error ?? null).toBeNull();
        expect(run.status).toBe('succeeded');
        expect(run.result).toMatchObject({
          tables: [
            { table: table('customers'), rows: 5 },
            { table: table('orders'), rows: 5 },
          ],
          rows_total: 10,
        });

        const after = await query('select id, email, full_name, phone, score from customers order by id');
        expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
        after.forEach((row, i) => {
          const was = before[i] as Record<string, unknown>;
          expect(row.email).not.toEqual(was.email);
          expect(String(row.email)).toHaveLength(32);
          expect(row.full_name).not.toEqual(was.full_name);
          expect(row.phone).not.toEqual(was.phone);
          expect(String(row.phone).slice(-2)).toEqual(String(was.phone).slice(-2));
        });
        expect(new Set(after.map((r) => r.email)).size).toBe(5);
        expect(after.map((r) => Number(r.score)).sort((a, b) => a - b)).toEqual(
          before.map((r) => Number(r.score)).sort((a, b) => a - b),
        );
        // The propagated key: the same input gave the same output in both tables.
        const joinedAfter = await query(
          'select o.id as order_id, c.id as customer_id from orders o join customers c on c.email = o.customer_email order by o.id',
        );
        expect(joinedAfter).toEqual(joinedBefore);
        expect(
          (await query('select customer_email from orders where id = 14'))[0]?.customer_email,
        ).toBeNull();
        expect((await query(engine.fkValid('orders_customer_fk')))[0]?.valid).toBeTruthy();
      });

      it('waits for approval on a production connection, bound to the config', async () => {
        const connection = await owner.post(
          `${API}/connections`,
          connectionBody(projectId, url, { environment: 'production' }),
        );
        expect(connection.status).toBe(201);
        const created = await owner.post(BASE, {
          project_id: projectId,
          connection_id: connection.body.id,
          name: `prod-${Math.random().toString(36).slice(2)}`,
          rules: [
            { table: 'customers', column: 'full_name', transformer: 'fake', options: { kind: 'full_name' } },
          ],
        });
        expect(created.status).toBe(201);
        const before = await query('select id, full_name from customers order by id');
        const started = await owner.post(`${BASE}/${created.body.id}/run`);
        expect(started.status).toBe(202);
        expect(started.body).toMatchObject({
          kind: 'anonymize_run',
          status: 'awaiting_approval',
          subject_id: created.body.id,
          approval_id: expect.any(String),
        });
        expect(await query('select id, full_name from customers order by id')).toEqual(before);
      });

      it('answers 401 without credentials, 403 to a role or scope too low, 404 to another organization', async () => {
        const id = await create([
          { table: 'customers', column: 'full_name', transformer: 'fake', options: { kind: 'full_name' } },
        ]);
        const route = `${BASE}/${id}/run`;
        expect((await t.anonymous.request('POST', route)).status).toBe(401);
        const viewer = await t.createUser(orgId, 'member');
        await owner.post(`${API}/projects/${projectId}/members`, { user_id: viewer.user.id, role: 'viewer' });
        expect((await viewer.post(route)).status).toBe(403);
        expect((await (await t.keyClient(owner, ['read'])).post(route)).status).toBe(403);
        expect((await (await t.createOrg(`Other run ${engine.name}`)).owner.post(route)).status).toBe(404);
        const developer = await t.createUser(orgId, 'member');
        await owner.post(`${API}/projects/${projectId}/members`, {
          user_id: developer.user.id,
          role: 'developer',
        });
        const started = await (await t.keyClient(developer, ['write'])).post(route);
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        expect((await finished(started.body.id)).status).toBe('succeeded');
      });
    });
  }
});

describe('the anonymization run endpoint limit', () => {
  it('limits a user to 5 runs a minute (429 with Retry-After)', () =>
    expectFivePerMinute((owner) => owner.post(`${BASE}/${randomUUID()}/run`)));
});

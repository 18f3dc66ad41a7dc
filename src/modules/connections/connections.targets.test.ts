// Connection tests and live schemas against the real PostgreSQL and MariaDB servers of the tests
// (127.0.0.1 only): a closed port, a server that quotes the password back, a connection lost during
// introspection, unknown databases, wrong passwords and missing rights, each answered with its
// classified cause and without the password.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionBody, pgCuttingProxy, responseText } from '../../../test/support/connections.ts';
import { connectionsSuite, itNeverShowsAPassword } from '../../../test/support/connections-suite.ts';
import { loadMysqlSql, loadPostgresSql } from '../../../test/support/corpus.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../../test/support/databases.ts';
import {
  createTestMysqlDatabase,
  mysqlAvailable,
  onMysqlServer,
  type TestMysqlDatabase,
  testMysqlUrl,
} from '../../../test/support/mysql.ts';
import { refusingPgServer } from '../../../test/support/targets.ts';

const BASE = '/api/v1/connections';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped('connection tests on PostgreSQL (connections.targets.test.ts)', 'PostgreSQL', testPgUrl);
const mysqlUp = await mysqlAvailable();
if (!mysqlUp) reportSkipped('connection tests on MySQL (connections.targets.test.ts)', 'MySQL', testMysqlUrl);

describe('connections', () => {
  const suite = connectionsSuite();
  const { password, closedPortConnection } = suite;

  it('tests a closed port as unreachable and a silent refusal of the password as authentication_failed', async () => {
    const closed = await closedPortConnection(suite.owner);
    const unreachable = await suite.owner.post(`${BASE}/${closed.id}/test`);
    expect(unreachable.status).toBe(200);
    expect(unreachable.body).toEqual({
      ok: false,
      latency_ms: expect.any(Number),
      server_version: null,
      error: { cause: 'unreachable', message: expect.any(String) },
    });

    // A server that quotes the password back in its refusal: the message must not carry it.
    const server = await refusingPgServer();
    try {
      const refused = await closedPortConnection(suite.owner, { port: server.port });
      const response = await suite.owner.post(`${BASE}/${refused.id}/test`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        ok: false,
        server_version: null,
        error: { cause: 'authentication_failed' },
      });
      expect(response.body.error.message).toContain('***');
      const schema = await suite.owner.get(`${BASE}/${refused.id}/schema`);
      expect(schema.status).toBe(502);
      expect(schema.body.detail).toContain(refused.name);
      expect(schema.body.detail).toContain(`Connection "${refused.name}" failed: Authentication failed: `);
      expect(schema.headers['x-target-error-cause']).toBe('authentication_failed');
      expect(schema.body.detail).toContain('***');
    } finally {
      await server.close();
    }

    const audit = await suite.owner.get(
      `/api/v1/audit?project_id=${suite.projectId}&action=connection.test&page_size=200`,
    );
    const entry = audit.body.items.find((e: { target_id: string }) => e.target_id === closed.id);
    expect(entry).toMatchObject({ outcome: 'failure', details: { ok: false, cause: 'unreachable' } });
  });

  it('answers 502 naming the connection and the cause when the schema cannot be read', async () => {
    const closed = await closedPortConnection(suite.owner, { name: 'Down' });
    const response = await suite.owner.get(`${BASE}/${closed.id}/schema`);
    expect(response.status).toBe(502);
    // The connection by its name, the cause in words once, no id (a person reads this).
    expect(response.body.detail).toMatch(/^Connection "Down" failed: The server is unreachable: /);
    expect(response.body.detail).not.toContain(closed.id);
    expect(response.headers['x-target-error-cause']).toBe('unreachable');
  });

  describe('on PostgreSQL', { skip: !pgUp }, () => {
    let database: TestPgDatabase;
    beforeAll(async () => {
      database = (await createTestPgDatabase())!;
      await loadPostgresSql(
        database.url,
        'create table customers (id bigint primary key, email text not null unique); ' +
          'create table orders (id bigint primary key, customer_id bigint references customers (id), total numeric(12,2))',
      );
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('tests ok with the server version, and reads the live schema', async () => {
      // The test server trusts 127.0.0.1, so any password passes; it still must never come back.
      const created = await suite.owner.post(
        BASE,
        connectionBody(suite.projectId, database.url, { password: password() }),
      );
      expect(created.status).toBe(201);
      const tested = await suite.owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body).toEqual({
        ok: true,
        latency_ms: expect.any(Number),
        server_version: expect.stringMatching(/^\d+(\.\d+)?/),
        error: null,
      });

      const schema = await suite.owner.get(`${BASE}/${created.body.id}/schema`);
      expect(schema.status).toBe(200);
      expect(schema.body).toMatchObject({ dialect: 'postgresql', flavor: 'postgresql' });
      expect(
        schema.body.tables.map((table: { schema: string; name: string }) => `${table.schema}.${table.name}`),
      ).toEqual(['public.customers', 'public.orders']);
      const orders = schema.body.tables[1];
      expect(orders.foreign_keys[0]).toMatchObject({
        columns: ['customer_id'],
        referenced_table: 'customers',
        referenced_columns: ['id'],
      });
      expect(orders.columns.find((c: { name: string }) => c.name === 'total').type).toBe('numeric(12,2)');
      // A heavy operation: it counts 10 against the plan allowance (docs/contract.md §4).
      expect(Number(schema.headers['x-ratelimit-remaining'])).toBe(
        Number(schema.headers['x-ratelimit-limit']) - 10,
      );
    });

    it('returns views, routines, triggers, partitioning and policies in the live schema', async () => {
      const objects = (await createTestPgDatabase())!;
      try {
        await loadPostgresSql(
          objects.url,
          'create table events (id bigint not null, at date not null) partition by range (at); ' +
            "create table events_2026 partition of events for values from ('2026-01-01') to ('2027-01-01'); " +
            'create table notes (id bigint primary key, body text); ' +
            'alter table notes enable row level security; ' +
            'create policy notes_read on notes for select using (true); ' +
            'create view note_bodies as select body from notes; ' +
            'create function touch() returns trigger language plpgsql as $$ begin return new; end $$; ' +
            'create trigger notes_touch before update on notes for each row execute function touch(); ' +
            // Storage, options and comments the model reads must also leave through the API.
            'alter table notes set (fillfactor = 70); alter table notes alter column body set storage external; ' +
            'create index notes_body on notes (body) with (fillfactor = 80); ' +
            "comment on index notes_body is 'for search'; " +
            'create table replies (id bigint primary key, note_id bigint, ' +
            'constraint replies_note foreign key (note_id) references notes (id) match full); ' +
            "comment on constraint replies_note on replies is 'a reply needs its note';",
        );
        const created = await suite.owner.post(
          BASE,
          connectionBody(suite.projectId, objects.url, { name: 'PG objects' }),
        );
        const schema = await suite.owner.get(`${BASE}/${created.body.id}/schema`);
        expect(schema.status).toBe(200);
        expect(schema.body.model_version).toEqual(expect.any(Number));
        expect(schema.body.views).toEqual([
          expect.objectContaining({ schema: 'public', name: 'note_bodies', materialized: false }),
        ]);
        expect(schema.body.routines).toEqual([
          expect.objectContaining({ name: 'touch()', kind: 'function', result: 'trigger' }),
        ]);
        expect(schema.body.triggers).toEqual([
          expect.objectContaining({ table: 'notes', name: 'notes_touch', state: 'O' }),
        ]);
        const table = (name: string) => schema.body.tables.find((t: { name: string }) => t.name === name);
        expect(table('events').partitioning).toMatchObject({ key: 'RANGE (at)', parent: null });
        expect(table('events_2026').partitioning).toMatchObject({
          parent: { schema: 'public', name: 'events' },
          bound: expect.stringMatching(/^FOR VALUES FROM/),
        });
        expect(table('notes').row_security).toEqual({ enabled: true, forced: false });
        expect(table('notes').table_storage).toMatchObject({ parameters: ['fillfactor=70'] });
        expect(table('notes').columns[1]).toMatchObject({ name: 'body', storage: 'external' });
        expect(table('notes').indexes).toEqual([
          expect.objectContaining({ name: 'notes_body', options: ['fillfactor=80'], comment: 'for search' }),
        ]);
        expect(table('replies').foreign_keys[0]).toMatchObject({
          match_full: true,
          comment: 'a reply needs its note',
        });
        expect(table('notes').policies).toEqual([
          expect.objectContaining({ name: 'notes_read', command: 'SELECT', permissive: true }),
        ]);
      } finally {
        await objects.drop();
      }
    });

    it('answers 502 connection_lost when the server goes away mid-introspection, and stores nothing', async () => {
      const { hostname, port } = new URL(database.url);
      // Two queries pass: the connection test's and the pool's connect; the introspection's is cut.
      const proxy = await pgCuttingProxy({ host: hostname, port: Number(port) }, 2);
      try {
        const secret = password();
        const id = (
          await suite.owner.post(
            BASE,
            connectionBody(suite.projectId, database.url, {
              name: 'Flaky',
              port: proxy.port,
              password: secret,
            }),
          )
        ).body.id;
        const tested = await suite.owner.post(`${BASE}/${id}/test`);
        expect(tested.body).toMatchObject({ ok: true });
        const schema = await suite.owner.get(`${BASE}/${id}/schema`);
        expect(schema.status).toBe(502);
        expect(schema.body.detail).toMatch(/^Connection "Flaky" failed: The connection was lost: /);
        expect(responseText(schema)).not.toContain(secret);
        const snapshot = await suite.owner.post(`${BASE}/${id}/snapshots`);
        expect(snapshot.status).toBe(502);
        expect((await suite.owner.get(`${BASE}/${id}/snapshots`)).body.total).toBe(0);
      } finally {
        await proxy.close();
      }
    });

    it('tests an unknown database as unknown_database (200, not ok)', async () => {
      const missing = `missing_${randomBytes(4).toString('hex')}`;
      const created = await suite.owner.post(
        BASE,
        connectionBody(suite.projectId, database.url, { database: missing, password: password() }),
      );
      const tested = await suite.owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body).toMatchObject({
        ok: false,
        server_version: null,
        error: { cause: 'unknown_database' },
      });
      const schema = await suite.owner.get(`${BASE}/${created.body.id}/schema`);
      expect(schema.status).toBe(502);
      expect(schema.body.detail).toContain('failed: The database does not exist: ');
      expect(schema.headers['x-target-error-cause']).toBe('unknown_database');
    });
  });

  describe('on MariaDB / MySQL', { skip: !mysqlUp }, () => {
    let database: TestMysqlDatabase;
    beforeAll(async () => {
      database = (await createTestMysqlDatabase())!;
      await loadMysqlSql(
        database.url,
        'create table customers (id bigint primary key, email varchar(200) not null unique);' +
          'create table orders (id bigint primary key, customer_id bigint, total decimal(12,2),' +
          ' foreign key (customer_id) references customers (id));',
      );
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('tests ok with the server version, and reads the live schema', async () => {
      const created = await suite.owner.post(BASE, connectionBody(suite.projectId, database.url));
      expect(created.status).toBe(201);
      const tested = await suite.owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.body).toEqual({
        ok: true,
        latency_ms: expect.any(Number),
        server_version: expect.stringMatching(/^\d+\.\d+/),
        error: null,
      });
      const schema = await suite.owner.get(`${BASE}/${created.body.id}/schema`);
      expect(schema.status).toBe(200);
      expect(schema.body.dialect).toBe('mysql');
      expect(['mysql', 'mariadb']).toContain(schema.body.flavor);
      expect(schema.body.tables.map((table: { name: string }) => table.name)).toEqual([
        'customers',
        'orders',
      ]);
      expect(schema.body.tables[1].foreign_keys[0]).toMatchObject({
        columns: ['customer_id'],
        referenced_table: 'customers',
      });
    });

    it('returns views, routines, triggers and partitioning in the live schema', async () => {
      const objects = (await createTestMysqlDatabase())!;
      try {
        await loadMysqlSql(
          objects.url,
          'create table sales (id int not null, y int not null, primary key (id, y))' +
            ' partition by range (y) (partition p0 values less than (2026), partition p1 values less than maxvalue);' +
            'create view sale_ids as select id from sales;' +
            'create trigger sales_check before insert on sales for each row set new.y = new.y;' +
            'create procedure count_sales() select count(*) from sales;',
        );
        const created = await suite.owner.post(
          BASE,
          connectionBody(suite.projectId, objects.url, { name: 'My objects' }),
        );
        const schema = await suite.owner.get(`${BASE}/${created.body.id}/schema`);
        expect(schema.status).toBe(200);
        expect(schema.body.default_collation).toEqual(expect.any(String));
        expect(schema.body.views).toEqual([expect.objectContaining({ schema: null, name: 'sale_ids' })]);
        expect(schema.body.routines).toEqual([
          expect.objectContaining({ name: 'count_sales', kind: 'procedure' }),
        ]);
        expect(schema.body.triggers).toEqual([
          expect.objectContaining({ table: 'sales', name: 'sales_check' }),
        ]);
        expect(schema.body.tables[0].partitioning.key).toMatch(/^RANGE/);
      } finally {
        await objects.drop();
      }
    });

    it('tests a wrong password as authentication_failed and an unknown database as unknown_database', async () => {
      const secret = password();
      const wrong = await suite.owner.post(
        BASE,
        connectionBody(suite.projectId, database.url, { password: secret }),
      );
      const refused = await suite.owner.post(`${BASE}/${wrong.body.id}/test`);
      expect(refused.status).toBe(200);
      expect(refused.body).toMatchObject({
        ok: false,
        server_version: null,
        error: { cause: 'authentication_failed' },
      });
      expect(responseText(refused)).not.toContain(secret);

      const missing = await suite.owner.post(
        BASE,
        connectionBody(suite.projectId, database.url, {
          database: `missing_${randomBytes(4).toString('hex')}`,
        }),
      );
      const unknown = await suite.owner.post(`${BASE}/${missing.body.id}/test`);
      expect(unknown.body).toMatchObject({ ok: false, error: { cause: 'unknown_database' } });
    });

    it('answers 502 permission_denied for a user without rights, and stores no snapshot', async () => {
      const user = `dbops_nr_${randomBytes(5).toString('hex')}`;
      const secret = password();
      // Generated name and hex password: safe to write into the statements.
      await onMysqlServer((connection) =>
        connection.query(`create user '${user}'@'%' identified by '${secret}'`),
      );
      try {
        const id = (
          await suite.owner.post(
            BASE,
            connectionBody(suite.projectId, database.url, { username: user, password: secret }),
          )
        ).body.id;
        const schema = await suite.owner.get(`${BASE}/${id}/schema`);
        expect(schema.status).toBe(502);
        expect(schema.body.detail).toContain('failed: Permission denied: ');
        expect(schema.headers['x-target-error-cause']).toBe('permission_denied');
        expect((await suite.owner.post(`${BASE}/${id}/snapshots`)).status).toBe(502);
        expect((await suite.owner.get(`${BASE}/${id}/snapshots`)).body.total).toBe(0);
      } finally {
        await onMysqlServer((connection) => connection.query(`drop user if exists '${user}'@'%'`));
      }
    });
  });

  itNeverShowsAPassword(suite, { secrets: 5, answers: 20 });
});

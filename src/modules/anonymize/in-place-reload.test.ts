// In-place runs on PostgreSQL reload a table (empty it, stream its transformed copy back) only where
// that cannot be told from an UPDATE of its rows, on the real test server: a reloaded table keeps
// what it had (indexes, constraints, defaults, comments, grants, a view, its owned sequence, replica
// identity) with every value masked; a table with a user trigger, or referenced by a foreign key
// from outside the run's group, is updated instead (the trigger fires as an UPDATE, the key stays);
// and the dialect's blockers name each reason.
import pgDriver from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client as ApiClient, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { postgresRowFormat } from '../../dialects/postgres/postgres.rows.ts';

const API = '/api/v1';
const engines = await targetEngines('in-place reloads (in-place-reload.test.ts)');
const pg = engines.postgresql;

const SCHEMA = `
  do $$ begin create role dbops_reload_reader nologin; exception when duplicate_object then null; end $$;
  create table people (id serial primary key, email text not null unique, name text default 'x',
    name_length int generated always as (length(name)) stored, check (email <> ''));
  create index people_name on people (name);
  comment on table people is 'the people';
  comment on column people.email is 'their e-mail';
  grant select on people to dbops_reload_reader;
  alter table people replica identity full;
  create view people_names as select id, name from people;
  insert into people (email, name) select 'person' || i || '@mail.org', 'Person ' || i from generate_series(1, 300) i;

  create table audited (id int primary key, email text);
  create table audit_log (op text, id int);
  create function audited_log() returns trigger language plpgsql as
    $$ begin insert into audit_log values (tg_op, new.id); return new; end $$;
  create trigger audited_log after insert or update on audited for each row execute function audited_log();
  insert into audited select i, 'a' || i || '@mail.org' from generate_series(1, 50) i;

  create table parents (id int primary key, email text);
  create table children (id int primary key, parent_id int references parents (id));
  insert into parents select i, 'p' || i || '@mail.org' from generate_series(1, 50) i;
  insert into children select i, i from generate_series(1, 50) i;`;

describe('in-place reloads on PostgreSQL', { skip: !pg.up }, () => {
  let t: TestApp;
  let owner: ApiClient;
  let projectId: string;
  let connectionId: string;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  const query = (sql: string) => pg.query(url, sql);

  beforeAll(async () => {
    t = await createTestApp({ work: true });
    ({ owner } = await t.createOrg('Anon reload'));
    projectId = (await owner.post(`${API}/projects`, { name: 'Anonymize reload' })).body.id;
    const created = await pg.create();
    ({ url, drop } = created);
    await pg.load(url, SCHEMA);
    const connection = await owner.post(`${API}/connections`, connectionBody(projectId, url));
    expect(connection.status).toBe(201);
    connectionId = connection.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await drop?.();
  });

  const run = async (rules: unknown[]) => {
    const created = await owner.post(`${API}/anonymize/configs`, {
      project_id: projectId,
      connection_id: connectionId,
      name: `cfg-${Math.random().toString(36).slice(2)}`,
      rules,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = await owner.post(`${API}/anonymize/configs/${created.body.id}/run`);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const done = await waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
    expect(done.status, String(done.error)).toBe('succeeded');
    return done;
  };

  const blockers = async (table: string) => {
    const client = new pgDriver.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(postgresRowFormat.tableReload?.blockersSql ?? '', [
        'public',
        table,
      ]);
      return rows.map((r: { reason: string }) => r.reason);
    } finally {
      await client.end();
    }
  };

  it('names what keeps a table from being reloaded, and nothing for a plain one', async () => {
    expect(await blockers('people')).toEqual([]);
    expect(await blockers('audited')).toEqual(['trigger audited_log']);
    expect(await blockers('parents')).toEqual(['referenced by children_parent_id_fkey']);
  });

  it('reloads a plain table keeping what it had, every e-mail replaced', async () => {
    const catalog = `select
      (select count(*)::int from pg_indexes where tablename = 'people') as indexes,
      (select count(*)::int from pg_constraint where conrelid = 'people'::regclass) as constraints,
      obj_description('people'::regclass) as comment, col_description('people'::regclass, 2) as column_comment,
      has_table_privilege('dbops_reload_reader', 'people', 'SELECT') as granted,
      (select relreplident from pg_class where oid = 'people'::regclass)::text as replica_identity,
      (select last_value::int from people_id_seq) as sequence,
      (select count(*)::int from people_names) as view_rows,
      (select oid::int from pg_class where relname = 'people') as oid`;
    const [before] = await query(catalog);
    const rows = await query('select id, email, name from people order by id');
    const done = await run([
      { table: 'people', column: 'email', transformer: 'fake', options: { kind: 'email' } },
    ]);
    expect(done.result).toMatchObject({ rows_total: 300 });
    expect((await query(catalog))[0]).toEqual(before);
    const after = await query('select id, email, name, name_length from people order by id');
    expect(after.map((r) => [r.id, r.name, r.name_length])).toEqual(
      rows.map((r) => [r.id, r.name, String(r.name).length]),
    );
    const clear = new Set(rows.map((r) => r.email));
    expect(after.filter((r) => clear.has(r.email))).toEqual([]);
    expect(new Set(after.map((r) => r.email)).size).toBe(300);
    // Reloaded, not updated: the first row is written anew at the start of an emptied table (an
    // UPDATE leaves its old version there and writes the new one after the others).
    expect(await query('select ctid::text as at from people where id = 1')).toEqual([{ at: '(0,1)' }]);
  });

  it('updates a table with a user trigger (it fires as an UPDATE, never as an INSERT)', async () => {
    await query('truncate audit_log');
    await run([{ table: 'audited', column: 'email', transformer: 'hash', options: { length: 16 } }]);
    const ops = await query('select op, count(*)::int as n from audit_log group by op');
    expect(ops).toEqual([{ op: 'UPDATE', n: 50 }]);
    expect(await query("select id from audited where email like '%@mail.org'")).toEqual([]);
  });

  it('updates a table referenced from outside the group, the foreign key kept', async () => {
    await run([{ table: 'parents', column: 'email', transformer: 'mask' }]);
    expect(await query("select id from parents where email like '%@mail.org'")).toEqual([]);
    expect(
      await query("select convalidated from pg_constraint where conname = 'children_parent_id_fkey'"),
    ).toEqual([{ convalidated: true }]);
    expect(await query('select count(*)::int as n from children')).toEqual([{ n: 50 }]);
  });
});

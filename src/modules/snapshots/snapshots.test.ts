// Snapshots on the real PostgreSQL and MariaDB test servers: taking one, the single baseline,
// lists without the schema, a stable hash, and nothing stored when the target fails.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
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
  type TestMysqlDatabase,
  testMysqlUrl,
} from '../../../test/support/mysql.ts';
import { freePort } from '../../../test/support/targets.ts';
import { createAuditService } from '../audit/audit.service.ts';
import { createSnapshotsService } from './snapshots.service.ts';

const CONNECTIONS = '/api/v1/connections';
const MISSING = '00000000-0000-4000-8000-000000000000';
const SNAPSHOT_FIELDS = ['connection_id', 'id', 'is_baseline', 'schema_hash', 'schema_json', 'taken_at'];

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('snapshots on PostgreSQL (snapshots.test.ts)', 'PostgreSQL', testPgUrl);
const mysqlUp = await mysqlAvailable();
if (!mysqlUp) reportSkipped('snapshots on MySQL (snapshots.test.ts)', 'MySQL', testMysqlUrl);

describe('snapshots', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let other: Client;
  let projectId: string;

  async function connect(url: string, overrides: Record<string, unknown> = {}): Promise<string> {
    const created = await owner.post(CONNECTIONS, connectionBody(projectId, url, overrides));
    expect(created.status).toBe(201);
    return created.body.id;
  }
  const snapshotsOf = (connectionId: string) =>
    t.store.db
      .selectFrom('snapshots')
      .select(['id', 'is_baseline'])
      .where('connection_id', '=', connectionId)
      .execute();

  beforeAll(async () => {
    t = await createTestApp({ targets: { connectTimeoutMs: 3_000 } });
    ({ orgId, owner } = await t.createOrg('Acme'));
    ({ owner: other } = await t.createOrg('Other'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Snapshots' })).body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stores nothing and answers 502 when the target is down', async () => {
    const id = await connect(`postgres://app@127.0.0.1:${await freePort()}/app`, { name: 'Down' });
    const response = await owner.post(`${CONNECTIONS}/${id}/snapshots?baseline=true`);
    expect(response.status).toBe(502);
    expect(response.body.detail).toMatch(/^Connection "Down" failed: The server is unreachable/);
    expect(await snapshotsOf(id)).toEqual([]);
    expect((await owner.get(`${CONNECTIONS}/${id}/snapshots`)).body).toEqual({
      items: [],
      total: 0,
      page: 1,
      page_size: 50,
    });
  });

  it('validates the baseline flag and the ids, and hides other organizations (404)', async () => {
    const id = await connect(`postgres://app@127.0.0.1:${await freePort()}/app`);
    const bad = await owner.post(`${CONNECTIONS}/${id}/snapshots?baseline=maybe`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'baseline']);
    expect((await owner.post(`${CONNECTIONS}/nope/snapshots`)).status).toBe(422);
    expect((await owner.get('/api/v1/snapshots/nope')).status).toBe(422);
    for (const response of [
      await other.post(`${CONNECTIONS}/${id}/snapshots`),
      await other.get(`${CONNECTIONS}/${id}/snapshots`),
      await owner.post(`${CONNECTIONS}/${MISSING}/snapshots`),
      await owner.get(`${CONNECTIONS}/${MISSING}/snapshots`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Connection not found' });
    }
    const unknown = await owner.get(`/api/v1/snapshots/${MISSING}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Snapshot not found' });
  });

  describe('on PostgreSQL', { skip: !pgUp }, () => {
    let database: TestPgDatabase;
    let connectionId: string;
    beforeAll(async () => {
      database = (await createTestPgDatabase())!;
      await loadPostgresSql(
        database.url,
        "create type mood as enum ('happy', 'sad'); " +
          'create table people (id bigint generated always as identity primary key, name text not null, ' +
          "mood mood default 'happy', created_at timestamptz default now()); " +
          'create index people_name on people (lower(name))',
      );
      connectionId = await connect(database.url, { name: 'PG' });
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('takes a snapshot with exactly the fixed fields, the live schema and its hash', async () => {
      const response = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots`);
      expect(response.status).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual(SNAPSHOT_FIELDS);
      expect(response.body).toMatchObject({
        connection_id: connectionId,
        is_baseline: false,
        schema_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        taken_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
      const model = response.body.schema_json;
      expect(model.tables.map((table: { name: string }) => table.name)).toEqual(['people']);
      expect(model.tables[0].indexes[0]).toMatchObject({ name: 'people_name', columns: ['lower(name)'] });
      expect(model.enums).toEqual([
        expect.objectContaining({ schema: 'public', name: 'mood', values: ['happy', 'sad'] }),
      ]);
      // The snapshot is the live schema, field for field.
      const live = await owner.get(`${CONNECTIONS}/${connectionId}/schema`);
      expect(model).toEqual(live.body);
      expect((await owner.get(`/api/v1/snapshots/${response.body.id}`)).body).toEqual(response.body);
      // A heavy operation: 10 of the plan allowance (docs/contract.md §4).
      expect(Number(response.headers['x-ratelimit-remaining'])).toBe(
        Number(response.headers['x-ratelimit-limit']) - 10,
      );
      const audit = await owner.get(`/api/v1/audit?action=snapshot.create&project_id=${projectId}`);
      expect(audit.body.items[0]).toMatchObject({
        actor_type: 'user',
        target_id: response.body.id,
        details: { connection_id: connectionId, schema_hash: response.body.schema_hash, is_baseline: false },
      });
    });

    it('hashes an unchanged database the same, and a changed one differently', async () => {
      const first = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots`);
      const second = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots`);
      expect(second.body.schema_hash).toBe(first.body.schema_hash);
      expect(second.body.id).not.toBe(first.body.id);
      await loadPostgresSql(database.url, 'alter table people add column nickname varchar(40)');
      const third = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots`);
      expect(third.body.schema_hash).not.toBe(first.body.schema_hash);
      await loadPostgresSql(database.url, 'alter table people drop column nickname');
      const fourth = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots`);
      expect(fourth.body.schema_hash).toBe(first.body.schema_hash);
    });

    it('keeps one baseline per connection: a new baseline unsets the previous one', async () => {
      const first = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots?baseline=true`);
      expect(first.status).toBe(201);
      expect(first.body.is_baseline).toBe(true);
      const plain = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots?baseline=false`);
      expect(plain.body.is_baseline).toBe(false);
      expect((await owner.get(`/api/v1/snapshots/${first.body.id}`)).body.is_baseline).toBe(true);

      const second = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots?baseline=true`);
      expect(second.body.is_baseline).toBe(true);
      expect((await owner.get(`/api/v1/snapshots/${first.body.id}`)).body.is_baseline).toBe(false);
      const baselines = (await snapshotsOf(connectionId)).filter((s) => s.is_baseline);
      expect(baselines.map((s) => s.id)).toEqual([second.body.id]);

      // Racing requests: each succeeds, one baseline remains.
      const raced = await Promise.all(
        [1, 2, 3].map(() => owner.post(`${CONNECTIONS}/${connectionId}/snapshots?baseline=true`)),
      );
      expect(raced.map((r) => r.status)).toEqual([201, 201, 201]);
      const after = (await snapshotsOf(connectionId)).filter((s) => s.is_baseline);
      expect(after).toHaveLength(1);
      expect(raced.map((r) => r.body.id)).toContain(after[0]!.id);
    });

    it('lists newest first without schema_json', async () => {
      const list = await owner.get(`${CONNECTIONS}/${connectionId}/snapshots?page_size=3`);
      expect(list.status).toBe(200);
      const total = (await snapshotsOf(connectionId)).length;
      expect(list.body).toMatchObject({ total, page: 1, page_size: 3 });
      expect(list.body.items).toHaveLength(3);
      for (const item of list.body.items) {
        expect(Object.keys(item).sort()).toEqual(SNAPSHOT_FIELDS.filter((f) => f !== 'schema_json'));
      }
      const times = list.body.items.map((s: { taken_at: string }) => s.taken_at);
      expect([...times].sort().reverse()).toEqual(times);
      const latest = await owner.post(`${CONNECTIONS}/${connectionId}/snapshots`);
      expect((await owner.get(`${CONNECTIONS}/${connectionId}/snapshots`)).body.items[0].id).toBe(
        latest.body.id,
      );
    });

    it('lets developers snapshot, only admins move the baseline, viewers only read', async () => {
      const member = async (role: 'viewer' | 'developer') => {
        const client = await t.createUser(orgId, 'member');
        await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: client.user.id, role });
        return client;
      };
      const viewer = await member('viewer');
      const developer = await member('developer');
      expect((await developer.post(`${CONNECTIONS}/${connectionId}/snapshots`)).status).toBe(201);
      const baseline = await developer.post(`${CONNECTIONS}/${connectionId}/snapshots?baseline=true`);
      expect(baseline.status).toBe(403);
      expect(baseline.body).toEqual({ detail: 'This action requires the project admin role' });
      expect((await viewer.post(`${CONNECTIONS}/${connectionId}/snapshots`)).status).toBe(403);
      const listed = await viewer.get(`${CONNECTIONS}/${connectionId}/snapshots`);
      expect(listed.status).toBe(200);
      expect((await viewer.get(`/api/v1/snapshots/${listed.body.items[0].id}`)).status).toBe(200);
      // Another organization, or a member without a role in the project, sees no snapshot.
      const outsider = await t.createUser(orgId, 'member');
      for (const client of [other, outsider]) {
        const hidden = await client.get(`/api/v1/snapshots/${listed.body.items[0].id}`);
        expect(hidden.status).toBe(404);
        expect(hidden.body).toEqual({ detail: 'Snapshot not found' });
      }
    });

    it('takeSnapshot serves other modules, as a system action', async () => {
      // The service function drift and patches call, built as the app builds it.
      const audit = createAuditService({ db: t.store.db, now: t.now });
      const connection = await t.store.db
        .selectFrom('connections')
        .selectAll()
        .where('id', '=', connectionId)
        .executeTakeFirstOrThrow();
      let introspected = 0;
      const live = (await owner.get(`${CONNECTIONS}/${connectionId}/schema`)).body;
      const snapshots = createSnapshotsService({
        db: t.store.db,
        audit,
        connections: {
          findById: async (id) => (id === connectionId ? connection : undefined),
          introspect: async () => {
            introspected += 1;
            return live;
          },
        },
        now: t.now,
      });
      const snapshot = await snapshots.takeSnapshot(connectionId, { baseline: true });
      expect(introspected).toBe(1);
      expect(snapshot).toMatchObject({ connection_id: connectionId, is_baseline: true, org_id: orgId });
      expect((await snapshots.baselineOf(connectionId))?.id).toBe(snapshot.id);
      const entry = await t.store.db
        .selectFrom('audit_log')
        .selectAll()
        .where('target_id', '=', snapshot.id)
        .executeTakeFirstOrThrow();
      expect(entry).toMatchObject({ actor_type: 'system', actor_label: 'snapshots', org_id: orgId });
      await expect(snapshots.takeSnapshot(MISSING, { baseline: false })).rejects.toMatchObject({
        code: 'not_found',
      });
    });

    it('settles simultaneous baselines one after the other, never with a conflict', async () => {
      const connection = await t.store.db
        .selectFrom('connections')
        .selectAll()
        .where('id', '=', connectionId)
        .executeTakeFirstOrThrow();
      const live = (await owner.get(`${CONNECTIONS}/${connectionId}/schema`)).body;
      // Every introspection ends at the same moment, so the store transactions start together.
      let start: () => void = () => {};
      const together = new Promise<void>((resolve) => (start = resolve));
      const snapshots = createSnapshotsService({
        db: t.store.db,
        audit: createAuditService({ db: t.store.db, now: t.now }),
        connections: {
          findById: async () => connection,
          introspect: async () => {
            await together;
            return live;
          },
        },
        now: t.now,
      });
      const taking = Array.from({ length: 10 }, () =>
        snapshots.takeSnapshot(connectionId, { baseline: true }),
      );
      start();
      const settled = await Promise.allSettled(taking);
      expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
      expect((await snapshotsOf(connectionId)).filter((s) => s.is_baseline)).toHaveLength(1);
    });

    it('deletes a connection with its snapshots', async () => {
      const id = await connect(database.url);
      const snapshot = (await owner.post(`${CONNECTIONS}/${id}/snapshots`)).body.id;
      expect((await owner.delete(`${CONNECTIONS}/${id}`)).status).toBe(204);
      expect((await owner.get(`/api/v1/snapshots/${snapshot}`)).status).toBe(404);
      const left = await sql<{
        n: string;
      }>`select count(*) as n from snapshots where connection_id = ${id}`.execute(t.store.db);
      expect(Number(left.rows[0]!.n)).toBe(0);
    });
  });

  describe('on MariaDB / MySQL', { skip: !mysqlUp }, () => {
    let database: TestMysqlDatabase;
    beforeAll(async () => {
      database = (await createTestMysqlDatabase())!;
      await loadMysqlSql(
        database.url,
        "create table people (id int auto_increment primary key, name varchar(100) not null, mood enum('happy','sad') default 'happy', created_at timestamp default current_timestamp);" +
          'create index people_name on people (name);',
      );
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('takes snapshots with a stable hash and the live schema', async () => {
      const id = await connect(database.url, { name: 'Maria' });
      const first = await owner.post(`${CONNECTIONS}/${id}/snapshots?baseline=true`);
      expect(first.status).toBe(201);
      expect(first.body.schema_json).toMatchObject({ dialect: 'mysql' });
      const people = first.body.schema_json.tables[0];
      expect(people.name).toBe('people');
      expect(people.columns.map((c: { name: string }) => c.name)).toEqual([
        'id',
        'name',
        'mood',
        'created_at',
      ]);
      const second = await owner.post(`${CONNECTIONS}/${id}/snapshots`);
      expect(second.body.schema_hash).toBe(first.body.schema_hash);
      await loadMysqlSql(database.url, 'alter table people modify name varchar(200) not null;');
      const third = await owner.post(`${CONNECTIONS}/${id}/snapshots`);
      expect(third.body.schema_hash).not.toBe(first.body.schema_hash);
    });
  });
});

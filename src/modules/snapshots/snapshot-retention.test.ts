// The snapshot retention pass on the service store: old snapshots go, except a connection's
// baseline, its newest, and those a drift report compares; a young one stays; connections are
// judged each on their own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  testPgUrl,
} from '../../../test/support/databases.ts';
import { createSnapshotRetention } from './snapshot-retention.ts';

const DAY = 24 * 60 * 60 * 1000;
const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('snapshot retention (snapshot-retention.test.ts)', 'PostgreSQL', testPgUrl);

describe('snapshot retention', { skip: !pgUp }, () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  let database: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    t = await createTestApp();
    ({ owner } = await t.createOrg('Snapshots Inc'));
    projectId = (await owner.post('/api/v1/projects', { name: 'History' })).body.id;
    database = (await createTestPgDatabase())!;
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  async function connection(name: string) {
    const created = await owner.post(
      '/api/v1/connections',
      connectionBody(projectId, database.url, { name }),
    );
    expect(created.status).toBe(201);
    return created.body as { id: string; org_id: string };
  }

  /** A snapshot row `age` days old. */
  async function snapshot(connectionId: string, orgId: string, age: number, baseline = false) {
    const id = randomUUID();
    await t.store.db
      .insertInto('snapshots')
      .values({
        id,
        org_id: orgId,
        connection_id: connectionId,
        taken_at: new Date(t.now().getTime() - age * DAY),
        schema_hash: `hash-${age}`,
        schema_json: JSON.stringify({ tables: [] }),
        is_baseline: baseline,
      })
      .execute();
    return id;
  }

  const left = async (connectionId: string) =>
    (
      await t.store.db
        .selectFrom('snapshots')
        .select('id')
        .where('connection_id', '=', connectionId)
        .orderBy('taken_at')
        .execute()
    ).map((row) => row.id);

  it('deletes old snapshots nothing needs, and keeps the baseline, the newest and a report’s', async () => {
    const main = await connection('main');
    const orgId = (await owner.get('/api/v1/orgs/current')).body.id as string;
    const baseline = await snapshot(main.id, orgId, 400, true);
    const reportedBaselineSide = await snapshot(main.id, orgId, 300);
    const reportedCurrentSide = await snapshot(main.id, orgId, 200);
    const unneeded = [await snapshot(main.id, orgId, 150), await snapshot(main.id, orgId, 100)];
    const young = await snapshot(main.id, orgId, 30);
    const newest = await snapshot(main.id, orgId, 1);
    await t.store.db
      .insertInto('drift_reports')
      .values({
        id: randomUUID(),
        org_id: orgId,
        project_id: projectId,
        connection_id: main.id,
        baseline_snapshot_id: reportedBaselineSide,
        current_snapshot_id: reportedCurrentSide,
        current_schema_hash: 'hash-200',
        status: 'pending',
        severity: 'minor',
        summary: JSON.stringify({ critical: 0, moderate: 0, minor: 1 }),
        diff: JSON.stringify({}),
        alert_state: 'none',
        created_at: t.now(),
      })
      .execute();
    // Another connection whose only snapshot is old: it is that connection's newest, so it stays.
    const other = await connection('other');
    const lonely = await snapshot(other.id, orgId, 500);

    const pass = createSnapshotRetention({
      db: t.store.db,
      logger: { info() {}, warn() {}, error() {} },
      retentionDays: 90,
      now: t.now,
    });
    expect(await pass()).toEqual({ deleted: unneeded.length });
    expect(await left(main.id)).toEqual([baseline, reportedBaselineSide, reportedCurrentSide, young, newest]);
    expect(await left(other.id)).toEqual([lonely]);
    expect(await pass()).toEqual({ deleted: 0 });
  });
});

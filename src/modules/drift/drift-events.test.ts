// drift.detected and drift.acknowledged reach the outbox in the transactions that create and
// acknowledge the report, with the report as the API returns it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/app.ts';
import { createTestPgDatabase, type TestPgDatabase } from '../../../test/support/databases.ts';
import { orgOnPlan } from '../../../test/support/drift.ts';
import { queryPostgres } from '../../../test/support/target-query.ts';

describe('drift events', async () => {
  const target = await createTestPgDatabase();
  let t: TestApp;
  let database: TestPgDatabase;

  beforeAll(async () => {
    t = await createTestApp({ targets: { connectTimeoutMs: 3_000 } });
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it.skipIf(!target)(
    'emits drift.detected for a new report and drift.acknowledged for its acknowledgement',
    async () => {
      database = target!;
      await queryPostgres(database.url, 'create table people (id int primary key, name text)');
      const { owner, projectId, connect } = await orgOnPlan(t, 'Drifting');
      const cid = await connect(database.url);
      expect((await owner.get(`/api/v1/connections/${cid}/drift`)).status).toBe(200);
      await queryPostgres(database.url, 'alter table people drop column name');
      const check = await owner.post(`/api/v1/connections/${cid}/drift/check`);
      expect(check.body.drift).toBe(true);
      const reportId = check.body.report.id;
      expect((await owner.post(`/api/v1/drifts/${reportId}/acknowledge`, { comment: 'known' })).status).toBe(
        200,
      );

      const events = await t.store.db
        .selectFrom('events')
        .select(['type', 'data', 'project_id'])
        .where('project_id', '=', projectId)
        .orderBy('seq')
        .execute();
      expect(events.map((e) => e.type)).toEqual(['drift.detected', 'drift.acknowledged']);
      expect(events[0]!.data).toMatchObject({ id: reportId, status: 'pending', severity: 'critical' });
      expect(events[1]!.data).toMatchObject({ id: reportId, status: 'acknowledged', comment: 'known' });
    },
  );
});

// Usage metering: API requests counted in memory and flushed, runs and rows read from the runs.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { insertFinishedRun } from '../runs/runs.repo.ts';
import { periodOf } from './usage-meter.ts';

describe('billing usage', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Metered'));
  });
  afterAll(() => t.close());

  const usage = async (query = '') => {
    const response = await owner.get(`/api/v1/billing/usage${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };
  const stored = async () =>
    (
      await t.store.db
        .selectFrom('billing_usage')
        .select('count')
        .where('org_id', '=', orgId)
        .where('metric', '=', 'api_requests')
        .executeTakeFirst()
    )?.count;

  it('counts API requests per organization without a store write per request', async () => {
    const first = await usage();
    expect(first.period).toBe(periodOf(t.now()));
    const before = await stored();
    for (let i = 0; i < 3; i++) expect((await owner.get('/api/v1/projects')).status).toBe(200);
    // Counted in memory: nothing written yet.
    expect(await stored()).toBe(before);
    const { owner: other } = await t.createOrg('Not metered here');
    await other.get('/api/v1/projects');
    const second = await usage();
    // The three calls and the first usage call itself, counted once its answer was sent.
    expect(second.api_requests - first.api_requests).toBe(4);
  });

  it('reads runs by kind, rows and drift checks of the period from the runs', async () => {
    const projectId = (await owner.post('/api/v1/projects', { name: 'Usage' })).body.id;
    const at = t.now();
    const run = (kind: 'patch_execute' | 'seed_run' | 'drift_check', result: Record<string, unknown>) =>
      insertFinishedRun(t.store.db, {
        id: randomUUID(),
        org_id: orgId,
        project_id: projectId,
        kind,
        subject_id: null,
        progress_total: null,
        progress_unit: 'rows',
        params: {},
        created_by: null,
        created_at: at,
        status: 'succeeded',
        result,
        error: null,
        started_at: at,
        finished_at: at,
      });
    await run('patch_execute', { total_affected_rows: 7 });
    await run('patch_execute', { total_affected_rows: 5 });
    await run('seed_run', { rows_total: 1000 });
    await run('drift_check', { drift: false });
    const now = await usage();
    expect(now.runs).toEqual({ patch_execute: 2, seed_run: 1, drift_check: 1 });
    expect(now.rows).toEqual({ patched: 12, seeded: 1000, anonymized: 0, copied: 0 });
    expect(now.drift_checks).toBe(1);
    const past = await usage('?period=2020-01');
    expect(past).toEqual({
      period: '2020-01',
      api_requests: 0,
      runs: {},
      rows: { patched: 0, seeded: 0, anonymized: 0, copied: 0 },
      drift_checks: 0,
    });
    expect((await owner.get('/api/v1/billing/usage?period=2020-13')).status).toBe(422);
  });

  it('is for organization admins', async () => {
    const member = await t.createUser(orgId, 'member');
    expect((await member.get('/api/v1/billing/usage')).status).toBe(403);
    expect((await t.anonymous.get('/api/v1/billing/usage')).status).toBe(401);
  });
});

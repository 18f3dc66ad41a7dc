import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { recordQueuedRun } from '../../../test/support/operations.ts';
import type { Actor } from '../../core/actors.ts';
import { AppError } from '../../core/errors.ts';
import type { Run, RunKind } from '../../store/tables.ts';
import type { RunHandlers } from './run-handler.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(client: Client, runId: string, statuses: string[]): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await client.get(`/api/v1/runs/${runId}`);
    if (statuses.includes(response.body.status)) return response.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${response.body.status}`);
    await sleep(100);
  }
}

describe('runs', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  let otherOwner: Client;
  let actor: Actor;
  const seen: string[] = [];

  const handlers: RunHandlers = {
    async migration_apply(run, context) {
      seen.push(run.id);
      for (let step = 1; step <= 3; step++) await context.progress(step, 3);
      return { statements_applied: 3 };
    },
    async patch_execute(_run, context) {
      // Works until asked to stop: progress is where a cancellation is noticed.
      for (let done = 0; ; done++) {
        await context.progress(done);
        await sleep(50);
      }
    },
    async seed_run() {
      throw new AppError('conflict', 'The target changed under the run');
    },
    async anonymize_run() {
      throw new Error('password=hunter2 leaked by a driver');
    },
  };

  const runsService = () => t.composition.runs;

  /** Records a queued run by `as` (the owner by default); `send: false` keeps it from the queue. */
  async function startRun(kind: RunKind, project = projectId, as = actor, send = true): Promise<Run> {
    const runs = runsService();
    const run = await recordQueuedRun(t, as, { projectId: project, kind });
    if (send) await runs.enqueue(run);
    return run;
  }

  beforeAll(async () => {
    t = await createTestApp({ runHandlers: handlers });
    ({ owner } = await t.createOrg('Runs'));
    ({ owner: otherOwner } = await t.createOrg('Elsewhere'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Ops' })).body.id;
    const me = (await owner.get('/api/v1/auth/me')).body;
    actor = {
      principal: {
        userId: me.id,
        orgId: (await owner.get('/api/v1/orgs/current')).body.id,
        orgRole: 'owner',
        email: me.email,
        via: 'session',
        scopes: null,
        sessionId: null,
        apiKeyId: null,
        plan: 'starter',
        customLimits: { perMinute: null, perHour: null },
      },
      ip: '127.0.0.1',
      userAgent: 'test',
    };
  });
  afterAll(() => t.close());

  it('works a queued run through the job queue, with progress and result', async () => {
    const run = await startRun('migration_apply');
    const queued = await owner.get(`/api/v1/runs/${run.id}`);
    expect(queued.body).toMatchObject({
      id: run.id,
      kind: 'migration_apply',
      project_id: projectId,
      approval_id: null,
    });
    const done = await waitFor(owner, run.id, ['succeeded', 'failed']);
    expect(done).toMatchObject({
      status: 'succeeded',
      progress: { done: 3, total: 3, unit: 'steps' },
      result: { statements_applied: 3 },
      error: null,
    });
    expect(done.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(done.finished_at).toMatch(/Z$/);
    expect(seen.filter((id) => id === run.id)).toHaveLength(1);
  });

  it('records a failure with the known error text, and hides unexpected internals', async () => {
    const known = await waitFor(owner, (await startRun('seed_run')).id, ['failed']);
    expect(known.error).toBe('The target changed under the run');
    const unexpected = await waitFor(owner, (await startRun('anonymize_run')).id, ['failed']);
    expect(unexpected.error).toMatch(/^Internal error \(logged with run id /);
    expect(unexpected.error).not.toContain('hunter2');
  });

  it('cancels a queued run whose requester lost the right before a worker took it', async () => {
    const orgId = actor.principal.orgId;
    const developer = await t.createUser(orgId, 'member');
    await owner.post(`/api/v1/projects/${projectId}/members`, {
      user_id: developer.user.id,
      role: 'developer',
    });
    const as: Actor = {
      ...actor,
      principal: {
        ...actor.principal,
        userId: developer.user.id,
        orgRole: 'member',
        email: developer.user.email,
      },
    };
    const run = await startRun('migration_apply', projectId, as, false);
    expect((await owner.delete(`/api/v1/projects/${projectId}/members/${developer.user.id}`)).status).toBe(
      204,
    );
    await runsService().enqueue(run);
    const body = await waitFor(owner, run.id, ['succeeded', 'failed', 'cancelled']);
    expect(body.status).toBe('cancelled');
    expect(body.error).toMatch(/^The requester no longer may migration\.apply on this project/);
    expect(seen).not.toContain(run.id);
  });

  it('fails a kind that has no worker yet, rather than leaving it queued', async () => {
    const body = await waitFor(owner, (await startRun('bridge_run')).id, ['failed']);
    expect(body.error).toBe('No worker can run bridge_run yet');
  });

  it('cancels a running run at its next checkpoint, and refuses to cancel a finished one', async () => {
    const run = await startRun('patch_execute');
    await waitFor(owner, run.id, ['running']);
    const asked = await owner.post(`/api/v1/runs/${run.id}/cancel`);
    expect(asked.status).toBe(200);
    const cancelled = await waitFor(owner, run.id, ['cancelled', 'failed', 'succeeded']);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.finished_at).not.toBeNull();
    const again = await owner.post(`/api/v1/runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: 'The run is cancelled and cannot be cancelled' });
  });

  it('marks the runs of a dead process failed as interrupted', async () => {
    const run = await startRun('migration_apply');
    await waitFor(owner, run.id, ['succeeded']);
    // A run some other process claimed and then stopped beating for.
    await t.store.db
      .updateTable('runs')
      .set({
        status: 'running',
        worker_id: 'gone:1',
        heartbeat_at: new Date(Date.now() - 10 * 60_000),
        finished_at: null,
      })
      .where('id', '=', run.id)
      .execute();
    const { createRunExecutor } = await import('./runs.executor.ts');
    const executor = createRunExecutor({
      db: t.store.db,
      kinds: t.composition.runKinds,
      handlers: {},
      logger: { error() {}, info() {} },
      now: t.now,
      workerId: 'sweeper',
      staleAfterMs: 60_000,
    });
    await executor.sweep();
    const body = (await owner.get(`/api/v1/runs/${run.id}`)).body;
    expect(body.status).toBe('failed');
    expect(body.error).toBe('interrupted: the process working this run stopped');
  });

  it('lists runs with filters and pagination, newest first, only for visible projects', async () => {
    const all = await owner.get(`/api/v1/runs?project_id=${projectId}&page_size=2`);
    expect(all.status).toBe(200);
    expect(all.body.items).toHaveLength(2);
    expect(all.body.total).toBeGreaterThanOrEqual(6);
    const failed = await owner.get('/api/v1/runs?status=failed&kind=seed_run');
    expect(
      failed.body.items.every(
        (r: { status: string; kind: string }) => r.status === 'failed' && r.kind === 'seed_run',
      ),
    ).toBe(true);
    expect(failed.body.total).toBe(1);
    const bad = await owner.get('/api/v1/runs?status=exploded');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'status']);
  });

  it('hides runs from other organizations and from non-members, and needs write to cancel', async () => {
    const run = await startRun('patch_execute');
    const stranger = await otherOwner.get(`/api/v1/runs/${run.id}`);
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ detail: 'Run not found' });
    expect((await otherOwner.post(`/api/v1/runs/${run.id}/cancel`)).status).toBe(404);
    expect((await otherOwner.get('/api/v1/runs')).body.total).toBe(0);

    const orgId = actor.principal.orgId;
    const member = await t.createUser(orgId, 'member');
    expect((await member.get(`/api/v1/runs/${run.id}`)).status).toBe(404);
    await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: member.user.id, role: 'viewer' });
    expect((await member.get(`/api/v1/runs/${run.id}`)).status).toBe(200);
    const viewerCancel = await member.post(`/api/v1/runs/${run.id}/cancel`);
    expect(viewerCancel.status).toBe(403);
    const readKey = await t.keyClient(owner, ['read']);
    expect((await readKey.post(`/api/v1/runs/${run.id}/cancel`)).status).toBe(403);
    expect((await t.anonymous.get('/api/v1/runs')).status).toBe(401);
    expect((await owner.get('/api/v1/runs/not-a-uuid')).status).toBe(422);
    await owner.post(`/api/v1/runs/${run.id}/cancel`);
    await waitFor(owner, run.id, ['cancelled']);
  });
});

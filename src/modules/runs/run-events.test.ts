// A run's end writes its events to the outbox in the transaction that records the end: the kind's
// own event (declared with the run kind) and run.failed for any failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorOf } from '../../../test/support/actors.ts';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { recordQueuedRun, waitForRun } from '../../../test/support/operations.ts';
import type { RunKind } from '../../store/tables.ts';
import type { RunHandlers } from './run-handler.ts';

describe('events of a run end', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let projectId: string;

  const handlers: RunHandlers = {
    migration_apply: async () => ({ statements_applied: 1 }),
    patch_execute: async () => {
      throw new Error('the target went away');
    },
    seed_run: async () => {
      throw new Error('no seeds today');
    },
  };

  beforeAll(async () => {
    t = await createTestApp({ runHandlers: handlers });
    ({ orgId, owner } = await t.createOrg('Run events'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Eventful' })).body.id;
  });
  afterAll(() => t.close());

  async function run(kind: RunKind) {
    const { runs } = t.composition;
    const actor = actorOf(owner, orgId);
    const created = await recordQueuedRun(t, actor, { projectId, kind });
    await runs.enqueue(created);
    await waitForRun(owner, created.id, ['succeeded', 'failed']);
    const events = await t.store.db
      .selectFrom('events')
      .select(['type', 'data', 'project_id'])
      .orderBy('seq')
      .execute();
    return { id: created.id, events: events.filter((e) => (e.data as { id?: string }).id === created.id) };
  }

  it('emits the kind event of a success, with the run as data', async () => {
    const { id, events } = await run('migration_apply');
    expect(events.map((e) => e.type)).toEqual(['migration.applied']);
    expect(events[0]).toMatchObject({
      project_id: projectId,
      data: { id, kind: 'migration_apply', status: 'succeeded', result: { statements_applied: 1 } },
    });
  });

  it("emits the kind's failure event and run.failed for a failure", async () => {
    const { events } = await run('patch_execute');
    expect(events.map((e) => e.type)).toEqual(['patch.failed', 'run.failed']);
    expect(events[1]!.data).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('Internal error'),
    });
  });

  it('emits run.failed alone for a kind that declares no failure event', async () => {
    const { events } = await run('seed_run');
    expect(events.map((e) => e.type)).toEqual(['run.failed']);
  });

  it('emits run.failed (and the kind failure event) for a run its dead process left running', async () => {
    const actor = actorOf(owner, orgId);
    const run = await recordQueuedRun(t, actor, { projectId, kind: 'patch_execute' });
    await t.store.db
      .updateTable('runs')
      .set({ status: 'running', worker_id: 'gone:1', heartbeat_at: new Date(Date.now() - 10 * 60_000) })
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
      events: t.composition.events,
    });
    await executor.sweep();
    const events = (
      await t.store.db.selectFrom('events').select(['type', 'data']).orderBy('seq').execute()
    ).filter((e) => (e.data as { id?: string }).id === run.id);
    expect(events.map((e) => e.type)).toEqual(['patch.failed', 'run.failed']);
    expect(events[1]!.data).toMatchObject({
      status: 'failed',
      error: 'interrupted: the process working this run stopped',
    });
  });
});

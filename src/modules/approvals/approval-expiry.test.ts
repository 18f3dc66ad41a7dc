import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorOf } from '../../../test/support/actors.ts';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { operations } from '../../../test/support/operations.ts';
import { scheduleOf } from '../../../test/support/schedules.ts';
import { createJobs } from '../../jobs/index.ts';
import { registerSchedule } from '../../jobs/schedule.ts';
import { APPROVAL_EXPIRY_JOB, createApprovalExpiry } from './expiry-pass.ts';

const DAY = 24 * 60 * 60 * 1000;

describe('approval expiry', () => {
  let t: TestApp;
  let ops: ReturnType<typeof operations>;
  let orgId: string;
  let owner: Client;
  let projectId: string;

  beforeAll(async () => {
    t = await createTestApp();
    ops = operations(t);
    ({ orgId, owner } = await t.createOrg('Expiry'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Slow reviews' })).body.id;
  });
  afterAll(() => t.close());

  it('expires pending approvals after 7 days and cancels their runs (handler called directly)', async () => {
    const logs: object[] = [];
    const logger = { info: (obj: object) => logs.push(obj), warn() {}, error() {} };
    const expire = createApprovalExpiry({ db: t.store.db, audit: t.composition.audit, logger, now: t.now });
    const actor = actorOf(owner, orgId);
    const old = await ops.start(actor, { projectId, subjectId: crypto.randomUUID(), contentHash: 'a' });
    t.advance(6 * DAY);
    const young = await ops.start(actor, { projectId, subjectId: crypto.randomUUID(), contentHash: 'b' });
    expect(await expire()).toEqual({ approvals_expired: 0, grants_expired: 0 });

    t.advance(DAY + 60_000);
    expect(await expire()).toEqual({ approvals_expired: 1, grants_expired: 0 });
    // Sessions last a day: a week later the owner signs in again.
    owner = await t.login(owner.user.email);
    expect((await owner.get(`/api/v1/approvals/${old.verdict.approvalId}`)).body.status).toBe('expired');
    expect((await owner.get(`/api/v1/runs/${old.run.id}`)).body.status).toBe('cancelled');
    expect((await owner.get(`/api/v1/approvals/${young.verdict.approvalId}`)).body.status).toBe('pending');
    expect((await owner.get(`/api/v1/runs/${young.run.id}`)).body.status).toBe('awaiting_approval');
    const late = await owner.patch(`/api/v1/approvals/${old.verdict.approvalId}`, { decision: 'approve' });
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ detail: 'The approval is expired' });
    expect(logs).toContainEqual({ job: 'approval_expiry', approvals_expired: 1, grants_expired: 0 });

    const audit = (await owner.get(`/api/v1/audit?action=approval.expire`)).body.items;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ target_id: old.verdict.approvalId, actor_type: 'system' });
    const runAudit = (await owner.get(`/api/v1/audit?action=run.cancel`)).body.items;
    expect(runAudit.map((e: { target_id: string }) => e.target_id)).toEqual([old.run.id]);
  });

  it('expires through the approval_expiry job on the queue', async () => {
    const logger = { info() {}, warn() {}, error() {} };
    const jobs = createJobs({ store: t.store, logger });
    await jobs.start();
    try {
      // Once a year: only the job this test sends runs.
      await registerSchedule(jobs, { ...scheduleOf(t, APPROVAL_EXPIRY_JOB), cron: '7 3 1 1 *' }, logger, 0.5);
      const pending = await ops.start(actorOf(owner, orgId), {
        projectId,
        subjectId: crypto.randomUUID(),
        contentHash: 'c',
      });
      t.advance(7 * DAY + 60_000);
      owner = await t.login(owner.user.email);
      const id = await jobs.boss.send(APPROVAL_EXPIRY_JOB);
      const deadline = Date.now() + 15_000;
      let job: { state: string; output: unknown } | undefined;
      while (Date.now() < deadline) {
        const [found] = await jobs.boss.findJobs(APPROVAL_EXPIRY_JOB, { id: id ?? '' });
        if (found && ['completed', 'failed'].includes(found.state)) {
          job = found;
          break;
        }
        await sleep(100);
      }
      // The approval of the previous test still pending ("young") expires too.
      expect(job).toMatchObject({ state: 'completed', output: { approvals_expired: 2, grants_expired: 0 } });
      expect((await owner.get(`/api/v1/approvals/${pending.verdict.approvalId}`)).body.status).toBe(
        'expired',
      );
      expect((await owner.get(`/api/v1/runs/${pending.run.id}`)).body.status).toBe('cancelled');
      expect((await owner.get(`/api/v1/projects/${projectId}`)).body.pending_approvals).toBe(0);
    } finally {
      await jobs.stop();
    }
  });
});

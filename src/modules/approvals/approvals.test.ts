import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorOf } from '../../../test/support/actors.ts';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { operations, waitForRun } from '../../../test/support/operations.ts';
import { AppError } from '../../core/errors.ts';

const DAY = 24 * 60 * 60 * 1000;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe('approvals', () => {
  let t: TestApp;
  let ops: ReturnType<typeof operations>;
  let orgId: string;
  let owner: Client;
  let alice: Client;
  let bob: Client;
  let developer: Client;
  let viewer: Client;
  let stranger: Client;
  let projectId: string;
  const applied: string[] = [];

  async function member(role: 'admin' | 'developer' | 'viewer', project = projectId): Promise<Client> {
    const client = await t.createUser(orgId, 'member');
    expect(
      (await owner.post(`/api/v1/projects/${project}/members`, { user_id: client.user.id, role })).status,
    ).toBe(201);
    return client;
  }

  const subject = () => crypto.randomUUID();
  const actions = async (targetId: string) =>
    (await owner.get(`/api/v1/audit?page_size=200`)).body.items
      .filter((e: { target_id: string }) => e.target_id === targetId)
      .map((e: { action: string }) => e.action)
      .reverse();

  beforeAll(async () => {
    t = await createTestApp({
      runHandlers: {
        async migration_apply(run) {
          applied.push(run.id);
          return { statements_applied: 1 };
        },
      },
    });
    ops = operations(t);
    ({ orgId, owner } = await t.createOrg('Approvals'));
    ({ owner: stranger } = await t.createOrg('Elsewhere'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Payments' })).body.id;
    alice = await member('admin');
    bob = await member('admin');
    developer = await member('developer');
    viewer = await member('viewer');
    const policy = await owner.put(`/api/v1/projects/${projectId}/policy`, {
      rules: [
        {
          operation: 'migration_apply',
          environments: ['staging', 'production'],
          required_approvals: 2,
          allow_self_approval: false,
        },
      ],
    });
    expect(policy.status).toBe(200);
  });
  afterAll(() => t.close());

  it('with 2 approvers: refuses self-approval, then two distinct approvals start the waiting run', async () => {
    const migration = subject();
    const { verdict, run } = await ops.start(actorOf(alice, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'sql-v1',
    });
    expect(verdict.decision).toBe('await');
    const approvalId = verdict.approvalId!;
    expect(run.status).toBe('awaiting_approval');
    const waiting = (await owner.get(`/api/v1/runs/${run.id}`)).body;
    expect(waiting).toMatchObject({ status: 'awaiting_approval', approval_id: approvalId });

    const pending = await owner.get(`/api/v1/approvals/${approvalId}`);
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({
      id: approvalId,
      project_id: projectId,
      kind: 'migration_apply',
      subject_id: migration,
      requested_by: alice.user.id,
      status: 'pending',
      required_approvals: 2,
      decisions: [],
      content_hash: 'sql-v1',
      created_at: expect.stringMatching(TIMESTAMP),
      expires_at: expect.stringMatching(TIMESTAMP),
      subject: {
        kind: 'migration',
        id: migration,
        title: 'test migration_apply',
        connection: {
          id: expect.any(String),
          name: 'test target',
          environment: 'production',
          protected: false,
        },
        summary: 'SELECT 1',
      },
      requester: { id: alice.user.id, email: alice.user.email, name: alice.user.name },
      can_decide: true,
    });
    // The requester may not approve their own request here: no Approve button for them.
    expect((await alice.get(`/api/v1/approvals/${approvalId}`)).body.can_decide).toBe(false);
    expect((await owner.get(`/api/v1/runs/${run.id}`)).body.subject).toEqual(pending.body.subject);
    expect(Date.parse(pending.body.expires_at) - Date.parse(pending.body.created_at)).toBe(7 * DAY);
    expect((await owner.get(`/api/v1/projects/${projectId}`)).body.pending_approvals).toBe(1);
    const listed = (await owner.get('/api/v1/projects')).body.items.find(
      (p: { id: string }) => p.id === projectId,
    );
    expect(listed.pending_approvals).toBe(1);

    const self = await alice.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approve' });
    expect(self.status).toBe(403);
    expect(self.body).toEqual({ detail: 'The requester cannot approve their own request' });

    const first = await bob.patch(`/api/v1/approvals/${approvalId}`, {
      decision: 'approve',
      comment: 'LGTM',
    });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('pending');
    expect(first.body.decisions).toEqual([
      {
        user_id: bob.user.id,
        decision: 'approve',
        comment: 'LGTM',
        decided_at: expect.stringMatching(TIMESTAMP),
      },
    ]);
    const twice = await bob.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approve' });
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ detail: 'You have already decided on this approval' });
    expect((await bob.get(`/api/v1/approvals/${approvalId}`)).body.can_decide).toBe(false);
    const changedMind = await bob.patch(`/api/v1/approvals/${approvalId}`, { decision: 'reject' });
    expect(changedMind.status).toBe(409);
    expect((await owner.get(`/api/v1/runs/${run.id}`)).body.status).toBe('awaiting_approval');

    const second = await owner.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approve' });
    expect(second.status).toBe(200);
    expect(second.body.status).toBe('approved');
    expect(second.body.decisions.map((d: { user_id: string }) => d.user_id)).toEqual([
      bob.user.id,
      owner.user.id,
    ]);

    const done = await waitForRun(owner, run.id, ['succeeded', 'failed', 'cancelled']);
    expect(done).toMatchObject({
      status: 'succeeded',
      approval_id: approvalId,
      result: { statements_applied: 1 },
    });
    expect(applied.filter((id) => id === run.id)).toHaveLength(1);
    expect((await owner.get(`/api/v1/projects/${projectId}`)).body.pending_approvals).toBe(0);

    const late = await alice.patch(`/api/v1/approvals/${approvalId}`, { decision: 'reject' });
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ detail: 'The approval is approved' });

    // The approval let one execution through: running the same content again asks again.
    const again = await ops.start(actorOf(alice, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'sql-v1',
    });
    expect(again.verdict.decision).toBe('await');
    expect(again.verdict.approvalId).not.toBe(approvalId);

    expect(await actions(approvalId)).toEqual([
      'approval.request',
      'approval.decision',
      'approval.decision',
      'approval.approve',
    ]);
    expect(await actions(run.id)).toEqual(['run.create', 'run.release']);
  });

  it('cancels the waiting run when the approval is rejected, and refuses the same content again', async () => {
    const migration = subject();
    const { verdict, run } = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'drop-v1',
    });
    const approvalId = verdict.approvalId!;
    const rejected = await bob.patch(`/api/v1/approvals/${approvalId}`, {
      decision: 'reject',
      comment: 'Not during the freeze',
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      decisions: [{ user_id: bob.user.id, decision: 'reject', comment: 'Not during the freeze' }],
    });
    const cancelled = (await owner.get(`/api/v1/runs/${run.id}`)).body;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.finished_at).toMatch(TIMESTAMP);
    expect(applied).not.toContain(run.id);

    const retry = ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'drop-v1',
    });
    await expect(retry).rejects.toBeInstanceOf(AppError);
    await expect(retry).rejects.toMatchObject({
      code: 'conflict',
      message: 'The approval for this content was rejected; change it to ask for approval again',
    });
    // Changed content asks afresh.
    const edited = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'drop-v2',
    });
    expect(edited.verdict.decision).toBe('await');
    expect(edited.verdict.approvalId).not.toBe(approvalId);

    expect(await actions(approvalId)).toEqual(['approval.request', 'approval.decision', 'approval.reject']);
    expect(await actions(run.id)).toEqual(['run.create', 'run.cancel']);
  });

  it('voids an approval when the content changes after approval, and a pending one on voidApprovals', async () => {
    const migration = subject();
    const first = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'v1',
    });
    const approvalId = first.verdict.approvalId!;
    // The run is cancelled while waiting, so the approval, once granted, stays unused.
    expect((await developer.post(`/api/v1/runs/${first.run.id}/cancel`)).status).toBe(200);
    await bob.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approve' });
    expect((await owner.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approve' })).body.status).toBe(
      'approved',
    );

    // The migration is edited: the approval of v1 is void, v2 waits for a new one.
    const edited = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'v2',
    });
    expect(edited.verdict.decision).toBe('await');
    expect(edited.run.status).toBe('awaiting_approval');
    expect((await owner.get(`/api/v1/approvals/${approvalId}`)).body.status).toBe('cancelled');
    const voided = await bob.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approve' });
    expect(voided.status).toBe(409);
    expect(voided.body).toEqual({ detail: 'The approval is cancelled' });

    // Edited through the editing code's call: the pending approval of v2 and its run are cancelled.
    const count = await t.store.db
      .transaction()
      .execute((trx) => ops.gate.voidApprovals(trx, actorOf(developer, orgId), migration));
    expect(count).toBe(1);
    const v2 = (await owner.get(`/api/v1/approvals/${edited.verdict.approvalId}`)).body;
    expect(v2.status).toBe('cancelled');
    expect((await owner.get(`/api/v1/runs/${edited.run.id}`)).body.status).toBe('cancelled');
    expect(await actions(approvalId)).toEqual([
      'approval.request',
      'approval.decision',
      'approval.decision',
      'approval.approve',
      'approval.cancel',
    ]);
    expect(await actions(edited.run.id)).toEqual(['run.create', 'run.cancel']);
  });

  it('lets an approved, unused approval through once for the same content', async () => {
    const migration = subject();
    const first = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'v1',
    });
    await developer.post(`/api/v1/runs/${first.run.id}/cancel`);
    await bob.patch(`/api/v1/approvals/${first.verdict.approvalId}`, { decision: 'approve' });
    await alice.patch(`/api/v1/approvals/${first.verdict.approvalId}`, { decision: 'approve' });

    const second = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'v1',
    });
    expect(second.verdict).toEqual({ decision: 'proceed', approvalId: first.verdict.approvalId });
    expect(second.run.status).toBe('queued');
    expect((await waitForRun(owner, second.run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const third = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'v1',
    });
    expect(third.verdict.decision).toBe('await');
    expect(await actions(first.verdict.approvalId!)).toContain('approval.consume');
  });

  it('reuses the pending approval for the same subject and content', async () => {
    const migration = subject();
    const one = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'x',
    });
    const two = await ops.start(actorOf(alice, orgId), { projectId, subjectId: migration, contentHash: 'x' });
    expect(two.verdict).toEqual(one.verdict);
    const other = await ops.start(actorOf(alice, orgId), {
      projectId,
      subjectId: migration,
      contentHash: 'x',
      operation: 'migration_rollback',
    });
    // Another operation on the same subject is gated on its own: this policy has no rule for it.
    expect(other.verdict).toEqual({ decision: 'proceed', approvalId: null });
  });

  it('allows self-approval where the policy says so', async () => {
    const project = (await owner.post('/api/v1/projects', { name: 'Self-service' })).body.id;
    await owner.put(`/api/v1/projects/${project}/policy`, {
      rules: [
        {
          operation: 'patch_execute',
          environments: ['production'],
          required_approvals: 1,
          allow_self_approval: true,
        },
      ],
    });
    const { verdict, run } = await ops.start(actorOf(owner, orgId), {
      projectId: project,
      subjectId: subject(),
      contentHash: 'p',
      operation: 'patch_execute',
    });
    const approved = await owner.patch(`/api/v1/approvals/${verdict.approvalId}`, { decision: 'approve' });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('approved');
    // No handler for patch_execute in this suite: the run leaves the wait and fails for want of a worker.
    expect((await waitForRun(owner, run.id, ['failed', 'succeeded'])).error).toBe(
      'No worker can run patch_execute yet',
    );
  });

  it('follows the default policy: production needs 1 approval, development and staging none', async () => {
    const project = (await owner.post('/api/v1/projects', { name: 'Defaults' })).body.id;
    const actor = actorOf(developer, orgId);
    await owner.post(`/api/v1/projects/${project}/members`, {
      user_id: developer.user.id,
      role: 'developer',
    });
    for (const operation of ['patch_execute', 'migration_apply', 'seed_run', 'bridge_run'] as const) {
      const production = await ops.start(actor, {
        projectId: project,
        subjectId: subject(),
        contentHash: 'h',
        operation,
        environment: 'production',
      });
      expect(production.verdict.decision).toBe('await');
      const approval = (await owner.get(`/api/v1/approvals/${production.verdict.approvalId}`)).body;
      expect(approval).toMatchObject({ kind: operation, required_approvals: 1, status: 'pending' });
    }
    for (const environment of ['development', 'staging'] as const) {
      const { verdict, run } = await ops.start(actor, {
        projectId: project,
        subjectId: subject(),
        contentHash: 'h',
        environment,
      });
      expect(verdict).toEqual({ decision: 'proceed', approvalId: null });
      expect((await waitForRun(owner, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    }
    // One approval suffices, and the developer who asked may not give it.
    const { verdict, run } = await ops.start(actor, {
      projectId: project,
      subjectId: subject(),
      contentHash: 'h',
    });
    expect(
      (await developer.patch(`/api/v1/approvals/${verdict.approvalId}`, { decision: 'approve' })).status,
    ).toBe(403);
    expect(
      (await owner.patch(`/api/v1/approvals/${verdict.approvalId}`, { decision: 'approve' })).body.status,
    ).toBe('approved');
    expect((await waitForRun(owner, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect((await owner.get(`/api/v1/projects/${project}`)).body.pending_approvals).toBe(4);
  });

  it('lists approvals with filters, newest first, only for visible projects', async () => {
    const all = await owner.get(`/api/v1/approvals?project_id=${projectId}&page_size=2`);
    expect(all.status).toBe(200);
    expect(all.body.items).toHaveLength(2);
    expect(all.body.total).toBeGreaterThan(4);
    const times = all.body.items.map((a: { created_at: string }) => a.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const rejected = await viewer.get(`/api/v1/approvals?project_id=${projectId}&status=rejected`);
    expect(rejected.body.total).toBe(1);
    expect(rejected.body.items[0]).toMatchObject({ status: 'rejected', decisions: [{ decision: 'reject' }] });
    const bad = await owner.get('/api/v1/approvals?status=maybe');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'status']);
    // A member sees the approvals of their projects only; a stranger none of this organization.
    const loner = await t.createUser(orgId, 'member');
    expect((await loner.get('/api/v1/approvals')).body.total).toBe(0);
    expect((await stranger.get('/api/v1/approvals')).body.total).toBe(0);
  });

  it('authorizes every route: 401 without credentials, 403 for role or scope, 404 elsewhere', async () => {
    const { verdict } = await ops.start(actorOf(developer, orgId), {
      projectId,
      subjectId: subject(),
      contentHash: 'authz',
    });
    const url = `/api/v1/approvals/${verdict.approvalId}`;
    for (const response of [
      await t.anonymous.get('/api/v1/approvals'),
      await t.anonymous.get(url),
      await t.anonymous.patch(url, { decision: 'approve' }),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: 'Not authenticated' });
    }
    for (const client of [viewer, developer]) {
      const refused = await client.patch(url, { decision: 'reject' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: 'This action requires the project admin role' });
    }
    const readKey = await t.keyClient(bob, ['read']);
    expect((await readKey.get(url)).status).toBe(200);
    const scoped = await readKey.patch(url, { decision: 'approve' });
    expect(scoped.status).toBe(403);
    expect(scoped.body).toEqual({ detail: "This API key lacks the 'write' scope" });
    for (const response of [
      await stranger.get(url),
      await stranger.patch(url, { decision: 'approve' }),
      await (await t.createUser(orgId, 'member')).get(url),
      await owner.get('/api/v1/approvals/00000000-0000-4000-8000-000000000000'),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Approval not found' });
    }
    expect((await owner.patch(url, { decision: 'maybe' })).status).toBe(422);
    expect((await owner.patch(url, { decision: 'approve', extra: 1 })).status).toBe(422);
    expect((await owner.get('/api/v1/approvals/not-a-uuid')).status).toBe(422);
    // Nothing above decided anything.
    expect((await owner.get(url)).body).toMatchObject({ status: 'pending', decisions: [] });
    const writeKey = await t.keyClient(bob, ['write']);
    expect((await writeKey.patch(url, { decision: 'approve' })).body.decisions).toHaveLength(1);
  });
});

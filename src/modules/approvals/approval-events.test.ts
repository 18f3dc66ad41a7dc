// `approval.decided` tells a webhook whenever a pending approval stops being pending: approved or
// rejected by a person, and expired by the job (data.status says which), sent to a real receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { type Receiver, startReceiver } from '../../../test/support/receivers.ts';
import { createApprovalExpiry } from './expiry-pass.ts';

const HOUR = 3_600_000;

describe('approval events', () => {
  let t: TestApp;
  let owner: Client;
  let viewer: Client;
  let otherViewer: Client;
  let projectId: string;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await createTestApp({ work: true, webhooks: { allowPrivate: true, retrySchedule: [1] } });
    let orgId: string;
    ({ orgId, owner } = await t.createOrg('Decisions'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Decided' })).body.id;
    viewer = await t.createUser(orgId, 'member');
    otherViewer = await t.createUser(orgId, 'member');
    for (const client of [viewer, otherViewer]) {
      await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: client.user.id, role: 'viewer' });
    }
    receiver = await startReceiver();
    const created = await owner.post(`/api/v1/projects/${projectId}/webhooks`, {
      url: `${receiver.url}/hook`,
      events: ['approval.decided'],
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  // Each person has one request open at a time, so each ask comes from its own viewer.
  const ask = async (asker: Client) => {
    const asked = await asker.post(`/api/v1/projects/${projectId}/access-requests`, {
      role: 'developer',
      duration_minutes: 30,
      reason: 'on call',
    });
    expect(asked.status).toBe(201);
    return asked.body.approval_id as string;
  };

  it('is sent when a person approves and when the job expires an undecided one', async () => {
    const approved = await ask(viewer);
    expect((await owner.patch(`/api/v1/approvals/${approved}`, { decision: 'approve' })).status).toBe(200);
    const [first] = await receiver.waitFor(1);
    expect(JSON.parse(first!.body)).toMatchObject({
      type: 'approval.decided',
      project_id: projectId,
      data: { id: approved, status: 'approved' },
    });

    const left = await ask(otherViewer);
    t.advance(25 * HOUR);
    const expire = createApprovalExpiry({
      db: t.store.db,
      logger: t.composition.logger,
      audit: t.composition.audit,
      now: t.now,
    });
    expect((await expire()).approvals_expired).toBe(1);
    const [, second] = await receiver.waitFor(2);
    expect(JSON.parse(second!.body)).toMatchObject({
      type: 'approval.decided',
      data: { id: left, status: 'expired' },
    });
  });
});

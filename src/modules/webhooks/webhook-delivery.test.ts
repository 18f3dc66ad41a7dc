// Deliveries to real HTTP receivers on loopback, with jobs worked for real and a short retry schedule.
// Signatures are checked with the `standardwebhooks` package, an independent receiver's code.
import { randomUUID } from 'node:crypto';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { type Receiver, startReceiver } from '../../../test/support/receivers.ts';
import { retryDelaySeconds } from './webhook-delivery.ts';

describe('webhook deliveries', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let projectId: string;
  let receiver: Receiver;
  /** The receivers of the tests that run side by side (ownHook below). */
  const ownReceivers: Receiver[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      work: true,
      webhooks: { allowPrivate: true, retrySchedule: [1, 1], timeoutMs: 800 },
    });
    ({ orgId, owner } = await t.createOrg('Deliveries'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Delivered' })).body.id;
  });
  afterAll(async () => {
    await t.close();
    for (const own of ownReceivers) await own.close();
  });
  afterEach(async () => {
    await receiver?.close();
    // Each test's webhooks go, so that later events are not delivered to earlier receivers.
    await t.store.db.deleteFrom('webhooks').where('project_id', '=', projectId).execute();
  });

  async function hook(events: string[] = ['*'], path = '/hook') {
    receiver = await startReceiver();
    const created = await owner.post(`/api/v1/projects/${projectId}/webhooks`, {
      url: `${receiver.url}${path}`,
      events,
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string };
  }

  /** An event through the outbox, as a module's transaction emits it. */
  const emit = (
    type: 'run.failed' | 'drift.detected' = 'run.failed',
    data: Record<string, unknown> = { n: 1 },
    project = projectId,
  ) =>
    t.store.db
      .transaction()
      .execute((trx) => t.composition.events.emit(trx, { type, orgId, projectId: project, data }));

  /**
   * A webhook on a project of the test's own, with a receiver of its own: for the tests that run side
   * by side (each waits out retry delays or a quiet period), which must not see each other's events.
   */
  async function ownHook(events: string[] = ['*']) {
    const project = (await owner.post('/api/v1/projects', { name: `Delivered ${randomUUID()}` })).body
      .id as string;
    const own = await startReceiver();
    ownReceivers.push(own);
    const created = await owner.post(`/api/v1/projects/${project}/webhooks`, {
      url: `${own.url}/hook`,
      events,
    });
    expect(created.status).toBe(201);
    const { id, secret } = created.body as { id: string; secret: string };
    return {
      id,
      secret,
      receiver: own,
      projectId: project,
      emit: (type?: 'run.failed' | 'drift.detected', data?: Record<string, unknown>) =>
        emit(type, data, project),
    };
  }

  async function deliveries(id: string) {
    return (await owner.get(`/api/v1/webhooks/${id}/deliveries`)).body.items as Record<string, unknown>[];
  }

  async function until<T>(
    probe: () => Promise<T>,
    ok: (value: T) => boolean,
    timeoutMs = 15_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (ok(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('signs each delivery so that a Standard Webhooks receiver verifies it', async () => {
    const { id, secret } = await hook();
    const eventId = await emit('run.failed', { id: 'r1', status: 'failed' });
    const [request] = await receiver.waitFor(1);
    const payload = new Verifier(secret).verify(request!.body, request!.headers as Record<string, string>);
    expect(payload).toEqual({
      id: eventId,
      type: 'run.failed',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      project_id: projectId,
      data: { id: 'r1', status: 'failed' },
    });
    expect(request!.headers['content-type']).toBe('application/json');
    // Someone else's secret does not verify it: the check above can fail.
    const stranger = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    expect(() =>
      new Verifier(stranger).verify(request!.body, request!.headers as Record<string, string>),
    ).toThrow();
    const [delivery] = await until(
      () => deliveries(id),
      (rows) => rows[0]?.status === 'succeeded',
    );
    expect(delivery).toMatchObject({
      event_id: eventId,
      event_type: 'run.failed',
      attempts: 1,
      last_status_code: 200,
    });
    expect(request!.headers['webhook-id']).toBe(delivery!.id);
  });

  it('delivers an event committed without a nudge (a crash after the commit) with the next pass', async () => {
    await hook();
    const orphan = randomUUID();
    await t.store.db
      .insertInto('events')
      .values({
        id: orphan,
        org_id: orgId,
        project_id: projectId,
        type: 'run.failed',
        data: '{}',
        created_at: t.now(),
      })
      .execute();
    await emit('run.failed');
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => JSON.parse(r.body).id)).toContain(orphan);
  });

  it('emits events from real state changes: an access request and its approval', async () => {
    await hook(['access_request.created', 'approval.requested']);
    const viewer = await t.createUser(orgId, 'member');
    await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: viewer.user.id, role: 'viewer' });
    const asked = await viewer.post(`/api/v1/projects/${projectId}/access-requests`, {
      role: 'developer',
      duration_minutes: 30,
      reason: 'on call',
    });
    expect(asked.status).toBe(201);
    const received = await receiver.waitFor(2);
    const bodies = received.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.type).sort()).toEqual(['access_request.created', 'approval.requested']);
    expect(bodies.find((b) => b.type === 'access_request.created').data).toMatchObject({
      id: asked.body.id,
      status: 'pending',
    });
  });

  it('never follows a redirect: a 3xx is a failed attempt', async () => {
    const { id } = await hook();
    receiver.respond((request) =>
      request.path === '/hook' ? { status: 307, headers: { location: '/elsewhere' } } : { status: 200 },
    );
    await emit();
    await receiver.waitFor(1);
    const [delivery] = await until(
      () => deliveries(id),
      (rows) => rows[0]?.attempts === 1,
    );
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: 307 });
    expect(delivery!.last_error).toContain('redirects are not followed');
    expect(receiver.received.map((r) => r.path)).not.toContain('/elsewhere');
  });

  it('gives up an attempt after the timeout', async () => {
    const { id } = await hook();
    receiver.respond(() => ({ status: 200, delayMs: 3_000 }));
    await emit();
    const [delivery] = await until(
      () => deliveries(id),
      (rows) => (rows[0]?.attempts as number) >= 1,
    );
    expect(delivery!.last_error).toBe('Timed out after 800 ms');
    expect(delivery!.last_status_code).toBeNull();
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const { id, secret: old } = await hook();
    const rotated = (await owner.post(`/api/v1/webhooks/${id}/rotate-secret`)).body.secret as string;
    await emit();
    const [request] = await receiver.waitFor(1);
    const headers = request!.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Verifier(old).verify(request!.body, headers)).toMatchObject({ type: 'run.failed' });
    expect(new Verifier(rotated).verify(request!.body, headers)).toMatchObject({ type: 'run.failed' });
  });

  it('sends a test event to one webhook, and redelivers a delivery with the same webhook-id', async () => {
    const { id, secret } = await hook();
    const tested = await owner.post(`/api/v1/webhooks/${id}/test`);
    expect(tested.status).toBe(202);
    expect(tested.body).toMatchObject({ event_type: 'webhook.test', status: 'pending' });
    const [first] = await receiver.waitFor(1);
    expect(new Verifier(secret).verify(first!.body, first!.headers as Record<string, string>)).toMatchObject({
      type: 'webhook.test',
      data: { webhook_id: id },
    });
    await until(
      () => deliveries(id),
      (rows) => rows[0]?.status === 'succeeded',
    );
    const again = await owner.post(`/api/v1/webhooks/${id}/deliveries/${tested.body.id}/redeliver`);
    expect(again.status).toBe(202);
    const [, second] = await receiver.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(JSON.parse(second!.body).id).toBe(JSON.parse(first!.body).id);
    const [delivery] = await until(
      () => deliveries(id),
      (rows) => rows[0]?.attempts === 2,
    );
    expect(delivery!.status).toBe('succeeded');
    expect((await owner.post(`/api/v1/webhooks/${id}/deliveries/${randomUUID()}/redeliver`)).status).toBe(
      404,
    );
  });

  // Each of these waits out retry delays of a second or more, or a quiet period that shows nothing
  // more arrives: they run side by side, each on a project and a receiver of its own.
  describe('on projects of their own, side by side', { concurrent: true }, () => {
    it('sends only the events a webhook subscribes to, and nothing for a rolled-back change', async () => {
      const { receiver, projectId, emit } = await ownHook(['drift.detected']);
      await emit('run.failed');
      await expect(
        t.store.db.transaction().execute(async (trx) => {
          await t.composition.events.emit(trx, {
            type: 'drift.detected',
            orgId,
            projectId,
            data: { rolled: 'back' },
          });
          throw new Error('the change fails');
        }),
      ).rejects.toThrow('the change fails');
      await emit('drift.detected', { kept: true });
      const [only] = await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(receiver.received).toHaveLength(1);
      expect(JSON.parse(only!.body)).toMatchObject({ type: 'drift.detected', data: { kept: true } });
    });

    it('retries on 500 by the schedule until a 2xx, with the same webhook-id and a fresh timestamp', async () => {
      const { id, receiver, emit } = await ownHook();
      receiver.respond((_request, index) => (index < 2 ? { status: 500, body: 'down' } : { status: 204 }));
      await emit();
      const received = await receiver.waitFor(3);
      expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(900);
      expect(received[2]!.at - received[1]!.at).toBeGreaterThanOrEqual(900);
      const [delivery] = await until(
        () => deliveries(id),
        (rows) => rows[0]?.status === 'succeeded',
      );
      expect(delivery).toMatchObject({
        attempts: 3,
        last_status_code: 204,
        last_error: null,
        next_attempt_at: null,
      });
    });

    it('fails a delivery for good when the schedule is spent, keeping a bounded excerpt of the answer', async () => {
      const { id, receiver, emit } = await ownHook();
      receiver.respond(() => ({ status: 500, body: 'x'.repeat(5000) }));
      await emit();
      await receiver.waitFor(3);
      const [delivery] = await until(
        () => deliveries(id),
        (rows) => rows[0]?.status === 'failed',
      );
      expect(delivery).toMatchObject({
        attempts: 3,
        last_status_code: 500,
        last_error: 'The receiver answered 500',
      });
      expect((delivery!.last_response_excerpt as string).length).toBe(1024);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(receiver.received).toHaveLength(3);
    });

    it('honours Retry-After on 429', async () => {
      const { receiver, emit } = await ownHook();
      receiver.respond((_request, index) =>
        index === 0 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 },
      );
      await emit();
      const received = await receiver.waitFor(2);
      expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(2_900);
    });

    it('disables the webhook on 410 Gone and stops its retries', async () => {
      const { id, receiver, emit } = await ownHook();
      receiver.respond(() => ({ status: 410 }));
      await emit();
      await receiver.waitFor(1);
      const webhook = await until(
        async () => (await owner.get(`/api/v1/webhooks/${id}`)).body,
        (body) => body.active === false,
      );
      expect(webhook.disabled_reason).toMatch(/^The receiver answered 410 Gone at /);
      await emit();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(receiver.received).toHaveLength(1);
      const [delivery] = await deliveries(id);
      expect(delivery).toMatchObject({ status: 'failed', last_status_code: 410, attempts: 1 });
      const audited = (await owner.get('/api/v1/audit?action=webhook.disable')).body.items;
      expect(audited[0]).toMatchObject({ target_id: id, actor_type: 'system' });
    });
  });

  it('computes retry delays from the schedule with jitter, honouring Retry-After', () => {
    const schedule = [5, 300, 1800];
    expect(retryDelaySeconds(schedule, 1, null, () => 0)).toBe(5);
    expect(retryDelaySeconds(schedule, 2, null, () => 1)).toBe(330);
    expect(retryDelaySeconds(schedule, 3, null, () => 0)).toBe(1800);
    expect(retryDelaySeconds(schedule, 4, null, () => 0)).toBeNull();
    expect(retryDelaySeconds(schedule, 1, 120, () => 0)).toBe(120);
    expect(retryDelaySeconds(schedule, 1, 10_000_000, () => 0)).toBe(86_400);
  });
});

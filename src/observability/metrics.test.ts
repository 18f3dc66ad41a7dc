// The in-process counters, read from the process's registry as /metrics serves it: a refused
// request counts under the limit that refused it, requests under their route's pattern, webhook
// attempts by outcome (the e2e test, test/e2e/observability.test.ts, scrapes real processes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/app.ts';
import { type Receiver, startReceiver } from '../../test/support/receivers.ts';
import { createMemoryRateLimitStore } from '../http/rate-limit-store.ts';
import { registry } from './metrics.ts';

async function current(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  const found = metric?.values.find((v) =>
    Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  );
  return found?.value ?? 0;
}

describe('the request-path metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Counted in memory: the harness counts no limit by default.
    t = await createTestApp({ rateLimitStore: (now) => createMemoryRateLimitStore({ now }) });
  }, 60_000);
  afterAll(() => t?.close());

  it('counts a 429 under the limit that refused it, and every request under its route pattern', async () => {
    const limitedBefore = await current('dbops_rate_limited_total', { limit: 'endpoint' });
    const loginBefore = await current('dbops_http_requests_total', {
      method: 'POST',
      route: '/api/v1/auth/login',
      status: '401',
    });
    const statuses: number[] = [];
    // Sign-in allows 5 attempts a minute per client address (docs/contract.md §4).
    for (let i = 0; i < 7; i++) {
      const answer = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'nobody@example.com', password: 'not the password' },
        remoteAddress: '198.51.100.77',
      });
      statuses.push(answer.statusCode);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    expect((await current('dbops_rate_limited_total', { limit: 'endpoint' })) - limitedBefore).toBe(
      statuses.filter((s) => s === 429).length,
    );
    expect(
      (await current('dbops_http_requests_total', {
        method: 'POST',
        route: '/api/v1/auth/login',
        status: '401',
      })) - loginBefore,
    ).toBe(statuses.filter((s) => s === 401).length);
  });
});

describe('the webhook delivery outcomes', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await createTestApp({
      work: true,
      webhooks: { allowPrivate: true, retrySchedule: [1], timeoutMs: 800 },
    });
    receiver = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('counts a 2xx as succeeded, a refusal with a retry left as retrying, and the last as failed', async () => {
    const before = {
      succeeded: await current('dbops_webhook_deliveries_total', { outcome: 'succeeded' }),
      retrying: await current('dbops_webhook_deliveries_total', { outcome: 'retrying' }),
      failed: await current('dbops_webhook_deliveries_total', { outcome: 'failed' }),
    };
    const { orgId, owner } = await t.createOrg('Delivered');
    const projectId = (await owner.post('/api/v1/projects', { name: 'Delivered' })).body.id as string;
    const created = await owner.post(`/api/v1/projects/${projectId}/webhooks`, {
      url: `${receiver.url}/hook`,
      events: ['*'],
    });
    expect(created.status).toBe(201);
    // The first event is taken, the second refused twice (one retry in the schedule).
    receiver.respond((request) => ({ status: request.body.includes('"n":1') ? 204 : 503 }));
    for (const n of [1, 2])
      await t.store.db
        .transaction()
        .execute((trx) =>
          t.composition.events.emit(trx, { type: 'run.failed', orgId, projectId, data: { n } }),
        );
    await receiver.waitFor(3, 20_000);
    const deadline = Date.now() + 10_000;
    while ((await current('dbops_webhook_deliveries_total', { outcome: 'failed' })) === before.failed) {
      if (Date.now() > deadline) throw new Error('the last attempt was not counted');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(
      (await current('dbops_webhook_deliveries_total', { outcome: 'succeeded' })) - before.succeeded,
    ).toBe(1);
    expect((await current('dbops_webhook_deliveries_total', { outcome: 'retrying' })) - before.retrying).toBe(
      1,
    );
    expect((await current('dbops_webhook_deliveries_total', { outcome: 'failed' })) - before.failed).toBe(1);
  }, 60_000);
});

// Stripe events signed with the `stripe` package's own test helper, sent to the real route.
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';

const SECRET = 'whsec_test_billing_secret';
const URL = '/api/v1/billing/webhooks/stripe';

describe('billing from Stripe events', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;

  beforeAll(async () => {
    t = await createTestApp({ billing: { stripeWebhookSecret: SECRET, graceDays: 7 } });
    ({ orgId, owner } = await t.createOrg('Paying'));
  });
  afterAll(() => t.close());

  function signed(event: object, options: { secret?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify(event);
    const header = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? SECRET,
      ...(options.timestamp !== undefined && { timestamp: options.timestamp }),
    });
    return { payload, header };
  }

  async function send(
    event: object,
    options: { secret?: string; timestamp?: number; header?: string | null } = {},
  ) {
    const { payload, header } = signed(event, options);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.header !== null) headers['stripe-signature'] = options.header ?? header;
    const response = await t.app.inject({ method: 'POST', url: URL, payload, headers });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  }

  const subscriptionEvent = (type: string, object: Record<string, unknown>) => ({
    id: `evt_${randomUUID()}`,
    type,
    data: { object: { id: 'sub_1', customer: 'cus_1', status: 'active', ...object } },
  });

  const plan = async () => (await owner.get('/api/v1/orgs/current')).body.plan;
  const subscription = async () => (await owner.get('/api/v1/billing/subscription')).body;

  it('refuses a missing, forged or stale signature with 400 and changes nothing', async () => {
    const event = subscriptionEvent('customer.subscription.created', {
      metadata: { org_id: orgId, plan: 'pro' },
    });
    const missing = await send(event, { header: null });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toMatch(/^Invalid Stripe signature/);
    expect((await send(event, { secret: 'whsec_someone_else' })).status).toBe(400);
    expect((await send(event, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(400);
    expect(await plan()).toBe('starter');
    const recorded = await t.store.db
      .selectFrom('billing_events')
      .select('id')
      .where('id', '=', event.id)
      .execute();
    expect(recorded).toEqual([]);
  });

  it('sets the plan from a subscription at once, in limits and features, and ignores a replay', async () => {
    const before = await owner.get('/api/v1/projects');
    expect(before.headers['x-ratelimit-limit']).toBe('60');
    const event = subscriptionEvent('customer.subscription.created', {
      metadata: { org_id: orgId, plan: 'enterprise' },
      current_period_end: 1_900_000_000,
    });
    expect(await send(event)).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(await plan()).toBe('enterprise');
    expect(await subscription()).toEqual({
      plan: 'enterprise',
      status: 'active',
      customer_id: 'cus_1',
      subscription_id: 'sub_1',
      current_period_end: '2030-03-17T17:46:40Z',
      grace_until: null,
    });
    const after = await owner.get('/api/v1/projects');
    expect(after.headers['x-ratelimit-limit']).toBe('1200');
    // A feature gate reads the plan of the same request: drift answers 404 (no such connection), not 403.
    expect((await owner.get(`/api/v1/connections/${randomUUID()}/drift`)).status).toBe(404);

    const changes = async () =>
      (await owner.get('/api/v1/audit?action=org.plan.update')).body.items.length as number;
    const count = await changes();
    expect(await send(event)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(await changes()).toBe(count);
  });

  it("reads the plan from the first item's price lookup key when the metadata has none", async () => {
    await send(
      subscriptionEvent('customer.subscription.updated', {
        metadata: { org_id: orgId },
        items: { data: [{ price: { lookup_key: 'pro' } }] },
      }),
    );
    expect(await plan()).toBe('pro');
  });

  it('keeps the plan through a grace period after a failed payment, then returns it to Starter', async () => {
    await send(
      subscriptionEvent('customer.subscription.updated', { metadata: { org_id: orgId, plan: 'pro' } }),
    );
    const failed = await send({
      id: `evt_${randomUUID()}`,
      type: 'invoice.payment_failed',
      data: { object: { customer: 'cus_1' } },
    });
    expect(failed.status).toBe(200);
    const sub = await subscription();
    expect(sub.status).toBe('past_due');
    expect(Date.parse(sub.grace_until) - t.now().getTime()).toBeGreaterThan(6.9 * 86_400_000);
    const grace = t.composition.modules.find((m) => m.name === 'billing')!.schedules![0]!;
    expect(await grace.run()).toEqual({ downgraded: 0 });
    expect(await plan()).toBe('pro');

    // Paid in time: the grace period ends and nothing is downgraded.
    await send({ id: `evt_${randomUUID()}`, type: 'invoice.paid', data: { object: { customer: 'cus_1' } } });
    expect(await subscription()).toMatchObject({ status: 'active', grace_until: null });

    await send({
      id: `evt_${randomUUID()}`,
      type: 'invoice.payment_failed',
      data: { object: { customer: 'cus_1' } },
    });
    t.advance(8 * 86_400_000);
    owner = await t.login(owner.user.email);
    expect(await grace.run()).toEqual({ downgraded: 1 });
    expect(await plan()).toBe('starter');
    expect((await subscription()).status).toBe('canceled');
  });

  it('returns a deleted subscription to Starter', async () => {
    await send(
      subscriptionEvent('customer.subscription.created', { metadata: { org_id: orgId, plan: 'enterprise' } }),
    );
    expect(await plan()).toBe('enterprise');
    await send(
      subscriptionEvent('customer.subscription.deleted', { metadata: { org_id: orgId }, status: 'canceled' }),
    );
    expect(await plan()).toBe('starter');
    expect((await subscription()).status).toBe('canceled');
  });

  it('answers 200 and changes nothing for an unknown organization or event type', async () => {
    const { orgId: bystanderOrg, owner: bystander } = await t.createOrg('Bystander');
    const unknown = await send(
      subscriptionEvent('customer.subscription.created', {
        metadata: { org_id: randomUUID(), plan: 'pro' },
        customer: 'cus_x',
      }),
    );
    expect(unknown).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(
      (await send({ id: `evt_${randomUUID()}`, type: 'charge.refunded', data: { object: {} } })).status,
    ).toBe(200);
    expect((await bystander.get('/api/v1/orgs/current')).body).toMatchObject({
      id: bystanderOrg,
      plan: 'starter',
    });
  });

  it('lists the plans to members; the subscription is for admins', async () => {
    const member = await t.createUser(orgId, 'member');
    const plans = await member.get('/api/v1/billing/plans');
    expect(plans.status).toBe(200);
    expect(plans.body.map((p: { id: string }) => p.id)).toEqual(['starter', 'pro', 'enterprise']);
    expect(plans.body[2]).toMatchObject({ per_minute: 1200, per_hour: 50000, features: ['drift_detection'] });
    expect((await member.get('/api/v1/billing/subscription')).status).toBe(403);
    expect((await t.anonymous.get('/api/v1/billing/plans')).status).toBe(401);
    const key = await t.keyClient(owner, ['read']);
    expect((await key.get('/api/v1/billing/subscription')).status).toBe(200);
  });
});

describe('billing without STRIPE_WEBHOOK_SECRET', () => {
  it('answers 404 on the webhook', async () => {
    const t = await createTestApp();
    try {
      const response = await t.app.inject({
        method: 'POST',
        url: URL,
        payload: '{}',
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      });
      expect(response.statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });
});

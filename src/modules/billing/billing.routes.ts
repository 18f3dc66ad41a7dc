// Billing routes: the plans, the organization's subscription, and Stripe's webhook. The webhook is
// called by Stripe, not by a user (no session, no key), and its signature covers the exact bytes
// sent, so it is registered in a scope of its own whose JSON parser keeps the raw body.
import { Type } from 'typebox';
import { PLAN_IDS, PLANS, rateLimitsOf } from '../../core/plans.ts';
import { SUBSCRIPTION_STATUSES } from '../../core/vocabulary.ts';
import { bodyDepthError } from '../../http/body-depth.ts';
import { actorOf } from '../../http/context.ts';
import { DocumentedAs, errors, Nullable, StringEnum, Timestamp, toTimestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { Db } from '../../store/db.ts';
import type { StripeEvents } from './stripe-events.ts';
import { readUsage } from './usage.repo.ts';
import { periodOf, type UsageMeter } from './usage-meter.ts';

const PlanSchema = Type.Object(
  {
    id: StringEnum(PLAN_IDS),
    name: Type.String(),
    per_minute: Type.Integer({ description: 'Requests per minute per user (Enterprise: the default)' }),
    per_hour: Type.Integer(),
    features: Type.Array(Type.String()),
  },
  { title: 'Plan' },
);

const SubscriptionSchema = Type.Object(
  {
    plan: StringEnum(PLAN_IDS),
    status: StringEnum(SUBSCRIPTION_STATUSES),
    customer_id: Nullable(Type.String()),
    subscription_id: Nullable(Type.String()),
    current_period_end: Nullable(Timestamp),
    grace_until: Nullable(Timestamp),
  },
  {
    title: 'Subscription',
    description: 'grace_until: after a failed payment, when the plan returns to Starter unless paid',
  },
);

const UsageSchema = Type.Object(
  {
    period: Type.String({ pattern: '^\\d{4}-\\d{2}$' }),
    api_requests: Type.Integer({ description: 'Authenticated /api/v1 requests (flushed every 10 s)' }),
    runs: Type.Record(Type.String(), Type.Integer(), { description: 'Runs started in the period, by kind' }),
    rows: Type.Object({
      patched: Type.Integer(),
      seeded: Type.Integer(),
      anonymized: Type.Integer(),
      copied: Type.Integer(),
    }),
    drift_checks: Type.Integer(),
  },
  { title: 'Usage' },
);

const UsageQuery = Type.Object({
  period: Type.Optional(
    Type.String({
      pattern: '^\\d{4}-(0[1-9]|1[0-2])$',
      description: 'YYYY-MM (UTC); the current month by default',
    }),
  ),
});

/** A Stripe event as Stripe sends it (application/json): the fields read here, and any others. */
const StripeEventPayload = Type.Object(
  {
    id: Type.String({ description: 'The event id (evt_…): a second delivery of it changes nothing' }),
    type: Type.String({ description: 'e.g. customer.subscription.updated, invoice.payment_failed' }),
    data: Type.Object(
      { object: Type.Object({}, { additionalProperties: true }) },
      { additionalProperties: true },
    ),
  },
  {
    title: 'StripeEventPayload',
    additionalProperties: true,
    description:
      'The event as Stripe sends it (a JSON object), verified against Stripe-Signature on its exact bytes',
  },
);

export function registerBillingRoutes(
  app: App,
  deps: { db: Db; stripe: StripeEvents; meter: UsageMeter; now: () => Date },
): void {
  const tags = ['billing'];

  // Every authenticated /api/v1 call counts against its organization, in memory (usage-meter.ts).
  app.addHook('onResponse', async (request) => {
    if (request.principal) deps.meter.count(request.principal.orgId, 'api_requests');
  });

  app.get(
    '/billing/usage',
    {
      config: { action: 'billing.read' },
      schema: {
        operationId: 'getUsage',
        tags,
        summary: "The organization's metered usage in a month",
        querystring: UsageQuery,
        response: { 200: UsageSchema, ...errors(401, 403) },
      },
    },
    async (request) => {
      // This process's latest counts first, so the answer includes the calls just made.
      await deps.meter.flush();
      const period = request.query.period ?? periodOf(deps.now());
      return readUsage(deps.db, actorOf(request).principal.orgId, period);
    },
  );

  app.get(
    '/billing/plans',
    {
      config: { action: 'billing.plans' },
      schema: {
        operationId: 'listPlans',
        tags,
        summary: 'The plans, their rate limits and features',
        response: { 200: Type.Array(PlanSchema, { title: 'PlanList' }), ...errors(401, 403) },
      },
    },
    async () =>
      PLAN_IDS.map((id) => {
        const limits = rateLimitsOf(id);
        return {
          id,
          name: PLANS[id].name,
          per_minute: limits.perMinute,
          per_hour: limits.perHour,
          features: [...PLANS[id].features],
        };
      }),
  );

  app.get(
    '/billing/subscription',
    {
      config: { action: 'billing.read' },
      schema: {
        operationId: 'getSubscription',
        tags,
        summary: "The organization's plan and subscription with the payment provider",
        response: { 200: SubscriptionSchema, ...errors(401, 403) },
      },
    },
    async (request) => {
      const orgId = actorOf(request).principal.orgId;
      const org = await deps.db
        .selectFrom('organizations')
        .select('plan')
        .where('id', '=', orgId)
        .executeTakeFirstOrThrow();
      const sub = await deps.db
        .selectFrom('billing_subscriptions')
        .selectAll()
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      return {
        plan: org.plan,
        status: sub?.status ?? 'active',
        customer_id: sub?.customer_id ?? null,
        subscription_id: sub?.subscription_id ?? null,
        current_period_end: toTimestamp(sub?.current_period_end ?? null),
        grace_until: toTimestamp(sub?.grace_until ?? null),
      };
    },
  );

  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    // The raw text is what the signature covers; the nesting bound of every body (docs/contract.md §1) still
    // applies before the signature is checked.
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(bodyDepthError(body as string), body),
    );
    scope.post(
      '/billing/webhooks/stripe',
      {
        config: { auth: 'public' },
        schema: {
          operationId: 'receiveStripeEvent',
          tags,
          summary: 'Stripe events (signed with STRIPE_WEBHOOK_SECRET); idempotent by event id',
          headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String()) }),
          // The handler takes the exact text (the signature covers its bytes); clients send the
          // JSON object of a Stripe event, which is what the document shows.
          body: DocumentedAs(StripeEventPayload, Type.String()),
          response: {
            200: Type.Object(
              { received: Type.Boolean(), duplicate: Type.Boolean() },
              { title: 'StripeEventReceipt' },
            ),
            400: Type.Ref('Error', { description: 'Missing or bad Stripe-Signature' }),
            ...errors(404),
          },
        },
      },
      async (request) => {
        const signature = request.headers['stripe-signature'];
        return deps.stripe.receive(
          typeof request.body === 'string' ? request.body : '',
          typeof signature === 'string' ? signature : undefined,
        );
      },
    );
  });
}

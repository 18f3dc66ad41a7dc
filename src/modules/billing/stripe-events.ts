// Applies Stripe's events to subscriptions and plans (docs/contract.md §11.3). The signature is checked with the
// `stripe` package's own `constructEvent` (HMAC over the raw body, 300 s tolerance); each event id is
// recorded in the transaction that applies it, so a replay (Stripe retries, or an attacker resending
// a signed body) changes nothing twice. An event for an unknown organization is recorded, logged and
// otherwise ignored. Plan changes reach limits and feature gates at once: the plan travels on every
// request's principal, read from the organization.
import { systemActor } from '../../core/actors.ts';
import { AppError } from '../../core/errors.ts';
import { isPlan } from '../../core/plans.ts';
import type { Plan, SubscriptionStatus } from '../../core/vocabulary.ts';
import type { Db } from '../../store/db.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Logger } from '../module.ts';
import { updateOrgPlan } from './billing.repo.ts';

const TOLERANCE_SECONDS = 300;
const ACTOR = systemActor('stripe');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Obj = Record<string, unknown>;

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Stripe's subscription status, in the three this service distinguishes. */
function statusOf(stripeStatus: unknown): SubscriptionStatus {
  if (stripeStatus === 'active' || stripeStatus === 'trialing') return 'active';
  if (stripeStatus === 'canceled' || stripeStatus === 'incomplete_expired') return 'canceled';
  return 'past_due';
}

/** The plan a subscription buys: its metadata.plan, else its first item's price lookup key. */
function planOf(subscription: Obj): Plan | null {
  const metadata = (subscription.metadata ?? {}) as Obj;
  const items = ((subscription.items as Obj | undefined)?.data ?? []) as Obj[];
  const lookup = (items[0]?.price as Obj | undefined)?.lookup_key;
  const plan = str(metadata.plan) ?? str(lookup);
  return plan && isPlan(plan) ? plan : null;
}

export type StripeEvents = ReturnType<typeof createStripeEvents>;

export function createStripeEvents(deps: {
  db: Db;
  audit: AuditService;
  logger: Logger;
  now: () => Date;
  webhookSecret: string | undefined;
  graceDays: number;
}) {
  const { db, audit, logger, now } = deps;

  async function setPlan(trx: Db, orgId: string, plan: Plan, reason: string): Promise<void> {
    const before = await trx
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', orgId)
      .executeTakeFirstOrThrow();
    if (before.plan === plan) return;
    // Leaving Enterprise drops its own limits; staying keeps them.
    const custom =
      plan === 'enterprise' ? before : { rate_limit_per_minute: null, rate_limit_per_hour: null };
    await updateOrgPlan(
      trx,
      orgId,
      {
        plan,
        rate_limit_per_minute: custom.rate_limit_per_minute,
        rate_limit_per_hour: custom.rate_limit_per_hour,
      },
      now(),
    );
    await audit.record(trx, ACTOR, {
      action: 'org.plan.update',
      orgId,
      target: { type: 'organization', id: orgId, label: before.name },
      details: { from: { plan: before.plan }, to: { plan }, reason },
    });
  }

  async function upsertSubscription(
    trx: Db,
    orgId: string,
    changes: Partial<{
      status: SubscriptionStatus;
      customer_id: string | null;
      subscription_id: string | null;
      current_period_end: Date | null;
      grace_until: Date | null;
    }>,
  ): Promise<void> {
    await trx
      .insertInto('billing_subscriptions')
      .values({ org_id: orgId, status: 'active', ...changes, updated_at: now() })
      .onConflict((oc) => oc.column('org_id').doUpdateSet({ ...changes, updated_at: now() }))
      .execute();
  }

  /** The organization a subscription event names (metadata.org_id), if it exists. */
  async function orgOfSubscription(trx: Db, subscription: Obj): Promise<string | null> {
    const orgId = str(((subscription.metadata ?? {}) as Obj).org_id);
    if (orgId && UUID.test(orgId)) {
      const org = await trx
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', orgId)
        .executeTakeFirst();
      if (org) return org.id;
    }
    const byCustomer = str(subscription.customer);
    return byCustomer ? orgOfCustomer(trx, byCustomer) : null;
  }

  async function orgOfCustomer(trx: Db, customerId: string): Promise<string | null> {
    const row = await trx
      .selectFrom('billing_subscriptions')
      .select('org_id')
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    return row?.org_id ?? null;
  }

  /** Applies one verified event; returns the organization it changed, or null. */
  async function apply(trx: Db, type: string, object: Obj): Promise<string | null> {
    if (type === 'customer.subscription.created' || type === 'customer.subscription.updated') {
      const orgId = await orgOfSubscription(trx, object);
      if (!orgId) return null;
      const plan = planOf(object);
      const status = statusOf(object.status);
      const periodEnd =
        typeof object.current_period_end === 'number' ? new Date(object.current_period_end * 1000) : null;
      await upsertSubscription(trx, orgId, {
        status,
        customer_id: str(object.customer),
        subscription_id: str(object.id),
        current_period_end: periodEnd,
        ...(status === 'active' && { grace_until: null }),
      });
      if (plan && status !== 'canceled') await setPlan(trx, orgId, plan, type);
      else if (!plan) logger.warn({ subscription: object.id }, 'Stripe subscription names no known plan');
      return orgId;
    }
    if (type === 'customer.subscription.deleted') {
      const orgId = await orgOfSubscription(trx, object);
      if (!orgId) return null;
      await upsertSubscription(trx, orgId, { status: 'canceled', grace_until: null });
      await setPlan(trx, orgId, 'starter', type);
      return orgId;
    }
    if (type === 'invoice.payment_failed' || type === 'invoice.paid') {
      const customer = str(object.customer);
      const orgId = customer ? await orgOfCustomer(trx, customer) : null;
      if (!orgId) return null;
      if (type === 'invoice.paid') {
        await upsertSubscription(trx, orgId, { status: 'active', grace_until: null });
        return orgId;
      }
      const current = await trx
        .selectFrom('billing_subscriptions')
        .select('grace_until')
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      // A second failure in the same grace period does not extend it.
      const grace = current?.grace_until ?? new Date(now().getTime() + deps.graceDays * 86_400_000);
      await upsertSubscription(trx, orgId, { status: 'past_due', grace_until: grace });
      await audit.record(trx, ACTOR, {
        action: 'billing.payment_failed',
        orgId,
        target: { type: 'organization', id: orgId },
        details: { grace_until: grace.toISOString() },
      });
      return orgId;
    }
    return null;
  }

  return {
    /** Verifies and applies a webhook call; throws 400 on a bad signature, 404 when not configured. */
    async receive(
      rawBody: string,
      signature: string | undefined,
    ): Promise<{ received: true; duplicate: boolean }> {
      if (!deps.webhookSecret) throw new AppError('not_found', 'Not Found');
      // The stripe package is some 200 modules (~0.1 s to load) and only this endpoint uses it: it
      // loads on the first event rather than with every start of the service.
      const { default: Stripe } = await import('stripe');
      let event: { id: string; type: string; data: { object: unknown } };
      try {
        event = Stripe.webhooks.constructEvent(
          rawBody,
          signature ?? '',
          deps.webhookSecret,
          TOLERANCE_SECONDS,
        );
      } catch (error) {
        throw new AppError(
          'bad_request',
          `Invalid Stripe signature: ${(error as Error).message.split('\n')[0]}`,
        );
      }
      return db.transaction().execute(async (trx) => {
        const first = await trx
          .insertInto('billing_events')
          .values({ id: event.id, type: event.type, org_id: null, received_at: now() })
          .onConflict((oc) => oc.column('id').doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!first) return { received: true as const, duplicate: true };
        const orgId = await apply(trx, event.type, (event.data.object ?? {}) as Obj);
        if (orgId)
          await trx.updateTable('billing_events').set({ org_id: orgId }).where('id', '=', event.id).execute();
        else
          logger.info(
            { event_id: event.id, type: event.type },
            'Stripe event changed nothing (unknown organization or type)',
          );
        return { received: true as const, duplicate: false };
      });
    },

    /** The daily pass: a grace period that ran out without a payment puts the plan back to Starter. */
    async endGracePeriods(): Promise<{ downgraded: number }> {
      const due = await db
        .selectFrom('billing_subscriptions')
        .select('org_id')
        .where('status', '=', 'past_due')
        .where('grace_until', '<', now())
        .execute();
      for (const { org_id } of due) {
        await db.transaction().execute(async (trx) => {
          await upsertSubscription(trx, org_id, { status: 'canceled', grace_until: null });
          await setPlan(trx, org_id, 'starter', 'grace period ended without payment');
        });
      }
      return { downgraded: due.length };
    },
  };
}

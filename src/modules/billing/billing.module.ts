// Billing: an organization's plan, driven by Stripe's signed events (subscriptions, invoices, a
// grace period after a failed payment), and the operator's `set-plan` command.
import { parseArgs } from 'node:util';
import { cliActor } from '../../core/actors.ts';
import { AppError } from '../../core/errors.ts';
import { PLAN_IDS, PLANS, rateLimitsOf } from '../../core/plans.ts';
import type { Module, Shared } from '../module.ts';
import { registerBillingRoutes } from './billing.routes.ts';
import { createBillingService } from './billing.service.ts';
import { createStripeEvents } from './stripe-events.ts';
import { createUsageMeter } from './usage-meter.ts';

export const BILLING_GRACE_JOB = 'billing_grace';

export function billingModule({ config, db, audit, logger, now }: Shared): Module {
  const billing = createBillingService({ db, audit, now });
  const stripe = createStripeEvents({
    db,
    audit,
    logger,
    now,
    webhookSecret: config.billing.stripeWebhookSecret,
    graceDays: config.billing.graceDays,
  });
  const meter = createUsageMeter({ db, logger, now });
  return {
    name: 'billing',
    routes: (api) => registerBillingRoutes(api, { db, stripe, meter, now }),
    close: () => meter.close(),
    schedules: [
      {
        name: BILLING_GRACE_JOB,
        cron: '15 5 * * *',
        run: () => stripe.endGracePeriods(),
        retry: { limit: 3, delaySeconds: 300 },
        expireInSeconds: 30 * 60,
      },
    ],
    commands: [
      {
        name: 'set-plan',
        usage:
          `set-plan --org ID|NAME --plan ${PLAN_IDS.join('|')} [--per-minute N] [--per-hour N]\n` +
          "      set an organization's plan; Enterprise may have its own rate limits\n" +
          "      (limits not given go back to the plan's default)",
        async run(args) {
          const { values } = parseArgs({
            args,
            options: {
              org: { type: 'string' },
              plan: { type: 'string' },
              'per-minute': { type: 'string' },
              'per-hour': { type: 'string' },
            },
          });
          if (!values.org || !values.plan)
            throw new AppError('validation', 'set-plan needs --org and --plan');
          const count = (name: 'per-minute' | 'per-hour'): number | undefined => {
            const raw = values[name];
            if (raw === undefined) return undefined;
            if (!/^\d+$/.test(raw))
              throw new AppError('validation', `--${name} must be a positive integer (got "${raw}")`);
            return Number(raw);
          };
          const org = await billing.setPlan(cliActor('set-plan'), {
            org: values.org,
            plan: values.plan,
            perMinute: count('per-minute'),
            perHour: count('per-hour'),
          });
          const limits = rateLimitsOf(org.plan, {
            perMinute: org.rate_limit_per_minute,
            perHour: org.rate_limit_per_hour,
          });
          const custom = org.rate_limit_per_minute !== null || org.rate_limit_per_hour !== null;
          return (
            `Organization "${org.name}" (${org.id}) is on the ${PLANS[org.plan].name} plan: ` +
            `${limits.perMinute} requests per minute and ${limits.perHour} per hour per user` +
            (custom ? ' (its own limits)' : '')
          );
        },
      },
    ],
  };
}

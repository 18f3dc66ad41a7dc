// Billing: an organization's plan and, on Enterprise, its own rate limits. Until payments exist the
// plan is set by an operator (`npm run cli -- set-plan`); payment-provider events will call the same
// function. The change is audited as a system action and applies from the next request on, since the
// plan is read with the credentials of every request.

import type { SystemActor } from '../../core/actors.ts';
import { AppError, conflict, invalid } from '../../core/errors.ts';
import { isPlan, PLAN_IDS, PLANS, rateLimitsOf } from '../../core/plans.ts';
import type { Db } from '../../store/db.ts';
import type { Organization } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { findOrgsByIdOrName, updateOrgPlan } from './billing.repo.ts';

/** The largest limit the store's integer columns hold. */
const MAX_LIMIT = 2_147_483_647;

export interface SetPlanInput {
  /** The organization's id or exact name. */
  org: string;
  plan: string;
  /** Enterprise only; omitted means the plan's default. */
  perMinute?: number | undefined;
  perHour?: number | undefined;
}

export type BillingService = ReturnType<typeof createBillingService>;

export function createBillingService(deps: { db: Db; audit: AuditService; now: () => Date }) {
  const { db, audit, now } = deps;
  return {
    /**
     * Sets the plan, and the custom limits with it: every call states the whole result, so limits
     * that are not given go back to the plan's default, and leaving Enterprise drops them.
     */
    async setPlan(actor: SystemActor, input: SetPlanInput): Promise<Organization> {
      const { plan, perMinute = null, perHour = null } = input;
      if (!isPlan(plan)) {
        throw invalid(['body', 'plan'], `Unknown plan "${plan}": use ${PLAN_IDS.join(', ')}`, 'enum');
      }
      if ((perMinute !== null || perHour !== null) && !PLANS[plan].customLimits) {
        throw invalid(
          ['body', 'plan'],
          `Custom rate limits are only for the ${PLANS.enterprise.name} plan, not ${PLANS[plan].name}`,
        );
      }
      for (const [field, name, value] of [
        ['rate_limit_per_minute', 'per-minute', perMinute],
        ['rate_limit_per_hour', 'per-hour', perHour],
      ] as const) {
        if (value !== null && !(Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT)) {
          throw invalid(['body', field], `The ${name} limit must be an integer from 1 to ${MAX_LIMIT}`);
        }
      }
      const limits = rateLimitsOf(plan, { perMinute, perHour });
      if (limits.perMinute > limits.perHour) {
        throw invalid(
          ['body', 'rate_limit_per_minute'],
          `The per-minute limit (${limits.perMinute}) is more than the per-hour limit (${limits.perHour})`,
        );
      }

      return db.transaction().execute(async (trx) => {
        const found = await findOrgsByIdOrName(trx, input.org);
        if (found.length === 0)
          throw new AppError('not_found', `No organization has the id or name "${input.org}"`);
        if (found.length > 1) {
          throw conflict(
            `${found.length} organizations are named "${input.org}": give the id (${found.map((o) => o.id).join(', ')})`,
          );
        }
        const before = found[0]!;
        const org = await updateOrgPlan(
          trx,
          before.id,
          { plan, rate_limit_per_minute: perMinute, rate_limit_per_hour: perHour },
          now(),
        );
        await audit.record(trx, actor, {
          action: 'org.plan.update',
          orgId: org.id,
          target: { type: 'organization', id: org.id, label: org.name },
          details: {
            from: {
              plan: before.plan,
              rate_limit_per_minute: before.rate_limit_per_minute,
              rate_limit_per_hour: before.rate_limit_per_hour,
            },
            to: { plan, rate_limit_per_minute: perMinute, rate_limit_per_hour: perHour },
          },
        });
        return org;
      });
    },
  };
}

// Billing plans: the one table of what each plan allows (docs/contract.md §4: rate limits; docs/contract.md §7: Enterprise-only
// drift detection). Everything that depends on the plan reads it from here, so a new plan or feature
// is one edit. The organization's plan travels on every request's principal (no extra query).

import { forbidden } from './errors.ts';
import { PLAN_IDS, type Plan } from './vocabulary.ts';

export type { Plan };

/** Requests allowed per fixed window, aligned to the minute and to the hour. */
export interface RateLimits {
  perMinute: number;
  perHour: number;
}

/** What a plan can gate. Only drift detection is gated so far (docs/contract.md §7, fixed: Enterprise only). */
export type Feature = 'drift_detection';

const FEATURE_NAMES: Record<Feature, string> = {
  drift_detection: 'Drift detection',
};

interface PlanDefinition {
  name: string;
  limits: RateLimits;
  /** Whether an organization on this plan may have limits of its own (`set-plan --per-minute …`). */
  customLimits: boolean;
  features: readonly Feature[];
}

export const PLANS = {
  starter: { name: 'Starter', limits: { perMinute: 60, perHour: 1_000 }, customLimits: false, features: [] },
  pro: { name: 'Pro', limits: { perMinute: 300, perHour: 10_000 }, customLimits: false, features: [] },
  enterprise: {
    name: 'Enterprise',
    // The default of an Enterprise organization without limits of its own.
    limits: { perMinute: 1_200, perHour: 50_000 },
    customLimits: true,
    features: ['drift_detection'],
  },
} as const satisfies Record<Plan, PlanDefinition>;

export { PLAN_IDS };

/** Anonymous calls are counted per client IP with the Starter values (docs/contract.md §4). */
export const ANONYMOUS_LIMITS: RateLimits = PLANS.starter.limits;

/** SCIM calls are counted per organization, 300 a minute whatever the plan (docs/contract.md §4). */
export const SCIM_LIMITS = { perMinute: 300 } as const;

/** An organization's own limits (Enterprise); a null field means the plan's default. */
export interface CustomLimits {
  perMinute: number | null;
  perHour: number | null;
}

export const NO_CUSTOM_LIMITS: CustomLimits = { perMinute: null, perHour: null };

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(PLANS, value);
}

/** The limits in force for an organization: its own where its plan allows them, else the plan's. */
export function rateLimitsOf(plan: Plan, custom: CustomLimits = NO_CUSTOM_LIMITS): RateLimits {
  const { limits, customLimits } = PLANS[plan];
  if (!customLimits) return limits;
  return { perMinute: custom.perMinute ?? limits.perMinute, perHour: custom.perHour ?? limits.perHour };
}

export function planHasFeature(plan: Plan, feature: Feature): boolean {
  return (PLANS[plan].features as readonly Feature[]).includes(feature);
}

/** 403 `"Drift detection requires the Enterprise plan"` (docs/contract.md §2) unless the plan has the feature. */
export function requireFeature(plan: Plan, feature: Feature): void {
  if (planHasFeature(plan, feature)) return;
  const lowest = PLAN_IDS.find((id) => planHasFeature(id, feature));
  throw forbidden(`${FEATURE_NAMES[feature]} requires the ${lowest ? PLANS[lowest].name : 'a higher'} plan`);
}

import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import {
  ANONYMOUS_LIMITS,
  isPlan,
  PLAN_IDS,
  PLANS,
  planHasFeature,
  rateLimitsOf,
  requireFeature,
  SCIM_LIMITS,
} from './plans.ts';

describe('plans', () => {
  it('has the fixed limits of docs/contract.md §4', () => {
    expect(PLAN_IDS).toEqual(['starter', 'pro', 'enterprise']);
    expect(rateLimitsOf('starter')).toEqual({ perMinute: 60, perHour: 1_000 });
    expect(rateLimitsOf('pro')).toEqual({ perMinute: 300, perHour: 10_000 });
    expect(rateLimitsOf('enterprise')).toEqual({ perMinute: 1_200, perHour: 50_000 });
    expect(ANONYMOUS_LIMITS).toEqual({ perMinute: 60, perHour: 1_000 });
    expect(SCIM_LIMITS).toEqual({ perMinute: 300 });
  });

  it('applies custom limits on Enterprise only, each falling back to the default on its own', () => {
    expect(rateLimitsOf('enterprise', { perMinute: 5_000, perHour: null })).toEqual({
      perMinute: 5_000,
      perHour: 50_000,
    });
    expect(rateLimitsOf('enterprise', { perMinute: null, perHour: 90_000 })).toEqual({
      perMinute: 1_200,
      perHour: 90_000,
    });
    // Left over on another plan (the CLI clears them, but the store could say otherwise): ignored.
    expect(rateLimitsOf('pro', { perMinute: 5_000, perHour: 90_000 })).toEqual({
      perMinute: 300,
      perHour: 10_000,
    });
    expect(rateLimitsOf('starter', { perMinute: 1, perHour: 1 })).toEqual({ perMinute: 60, perHour: 1_000 });
  });

  it('gates drift detection to Enterprise, with the 403 text of docs/contract.md §2', () => {
    expect(planHasFeature('enterprise', 'drift_detection')).toBe(true);
    expect(planHasFeature('pro', 'drift_detection')).toBe(false);
    expect(planHasFeature('starter', 'drift_detection')).toBe(false);
    expect(() => requireFeature('enterprise', 'drift_detection')).not.toThrow();
    for (const plan of ['starter', 'pro'] as const) {
      let thrown: unknown;
      try {
        requireFeature(plan, 'drift_detection');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).status).toBe(403);
      expect((thrown as AppError).detail).toBe('Drift detection requires the Enterprise plan');
    }
  });

  it('knows its plans and nothing else', () => {
    for (const plan of PLAN_IDS) expect(isPlan(plan)).toBe(true);
    for (const other of ['gold', 'Starter', 'toString', '__proto__', '']) expect(isPlan(other)).toBe(false);
    expect(Object.values(PLANS).map((p) => p.name)).toEqual(['Starter', 'Pro', 'Enterprise']);
  });
});

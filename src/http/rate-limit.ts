// Rate limits (docs/contract.md §4). Each request is counted against its caller's plan allowance (per user when
// authenticated, all sessions and keys of the user together; per client IP when anonymous or when
// the credentials failed; per organization for SCIM), over a minute and an hour window together,
// and against a stricter limit of the endpoint when the route declares one. Heavy operations and
// lists with page_size > 100 count 10 against the plan allowance. Every response carries the
// X-RateLimit-* headers of the most restrictive limit; over any limit the answer is 429.
//
// Why not @fastify/rate-limit: one checker counts one limit under one key, and its headers describe
// that checker only (the reset as a delta by default); two windows need two checkers, and stacking
// two of its hooks silently skips the second. There is no weight per request,
// and a request refused by one checker has already been counted by another. The contract needs
// several limits per request, consumed all or nothing with weights, and the headers of the most
// restrictive one: a small limiter over an atomic multi-counter store (rate-limit-store.ts) says
// that directly.
//
// CORS preflights are answered by @fastify/cors before these hooks run and are not counted: browsers
// send them on their own, without credentials.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../core/actors.ts';
import { AppError } from '../core/errors.ts';
import { ANONYMOUS_LIMITS, type RateLimits, rateLimitsOf, SCIM_LIMITS } from '../core/plans.ts';
import { metrics } from '../observability/metrics.ts';
import type { ConsumeResult, Counter, RateLimitStore } from './rate-limit-store.ts';

/** A stricter limit of one endpoint, counted per client IP or per user (anonymous callers: per IP). */
export interface EndpointLimit {
  perMinute: number;
  per: 'ip' | 'user';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A limit of this endpoint on top of the plan allowance: `{ perMinute: 5, per: 'ip' }`. */
    rateLimit?: EndpointLimit;
    /** A heavy operation (execute, run, apply, rollback, compare, drift check, snapshot): weight 10. */
    heavy?: boolean;
  }
}

/** The stricter per-endpoint limits of docs/contract.md §4 (fixed), for the routes' `config.rateLimit`. */
export const ENDPOINT_LIMITS = {
  login: { perMinute: 5, per: 'ip' },
  loginTwoFactor: { perMinute: 5, per: 'ip' },
  patchExecute: { perMinute: 10, per: 'user' },
  anonymizeRun: { perMinute: 5, per: 'user' },
  bridgeRun: { perMinute: 5, per: 'user' },
} as const satisfies Record<string, EndpointLimit>;

/** What a heavy operation, or a list of more than LARGE_PAGE items, costs of the plan allowance. */
export const HEAVY_WEIGHT = 10;
export const LARGE_PAGE = 100;

export type Window = 'minute' | 'hour';
const WINDOW_MS: Record<Window, number> = { minute: 60_000, hour: 3_600_000 };
/** Counters outlive their window by this much, for processes whose clocks disagree a little. */
const CLOCK_MARGIN_MS = 60_000;

/** One limit a request is counted against. */
export interface Charge {
  /** Who and what is counted, e.g. `plan:user:<id>`; the window is added to it. */
  key: string;
  max: number;
  window: Window;
  weight: number;
}

/** Who a request's plan allowance belongs to. */
export interface RateSubject {
  key: string;
  limits: Partial<RateLimits>;
}

export function userSubject(principal: Pick<Principal, 'userId' | 'plan' | 'customLimits'>): RateSubject {
  return { key: `user:${principal.userId}`, limits: rateLimitsOf(principal.plan, principal.customLimits) };
}

export function ipSubject(ip: string): RateSubject {
  return { key: `ip:${ip}`, limits: ANONYMOUS_LIMITS };
}

/** SCIM calls (docs/contract.md §4): per organization, whatever the plan. For the SCIM routes' own hook. */
export function orgScimSubject(orgId: string): RateSubject {
  return { key: `scim:${orgId}`, limits: SCIM_LIMITS };
}

/** The plan-allowance charges of one request of `subject`. */
export function allowanceCharges(subject: RateSubject, weight: number): Charge[] {
  const charges: Charge[] = [];
  const { perMinute, perHour } = subject.limits;
  if (perMinute !== undefined)
    charges.push({ key: `plan:${subject.key}`, max: perMinute, window: 'minute', weight });
  if (perHour !== undefined)
    charges.push({ key: `plan:${subject.key}`, max: perHour, window: 'hour', weight });
  return charges;
}

interface ChargeState extends Charge {
  count: number;
  remaining: number;
  resetMs: number;
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

export function createRateLimiter(deps: { store: RateLimitStore; now: () => Date }) {
  const { store, now } = deps;
  let lastStoreError = Number.NEGATIVE_INFINITY;

  /**
   * Counts the request against every charge, all or none, and sets the X-RateLimit-* headers of the
   * most restrictive; throws 429 when any limit is reached.
   */
  async function charge(request: FastifyRequest, reply: FastifyReply, charges: Charge[]): Promise<void> {
    if (charges.length === 0) return;
    const at = now().getTime();
    const windows = charges.map((c) => {
      const size = WINDOW_MS[c.window];
      const start = Math.floor(at / size) * size;
      return { start, end: start + size };
    });
    // A request never costs more than a whole window, or it could never pass.
    const weights = charges.map((c) => Math.min(c.weight, c.max));
    const counters: Counter[] = charges.map((c, i) => ({
      key: `${c.key}:${c.window}:${windows[i]!.start / 1000}`,
      limit: c.max,
      weight: weights[i]!,
      ttlMs: windows[i]!.end - at + CLOCK_MARGIN_MS,
    }));
    let result: ConsumeResult;
    try {
      result = await store.consume(counters);
    } catch (error) {
      // The counters are unreachable (Redis down): serve without limits rather than not at all,
      // and say so in the log once a minute rather than on every request.
      if (at - lastStoreError >= 60_000) {
        lastStoreError = at;
        request.log.error({ err: error }, 'rate-limit counters unreachable: requests are not counted');
      }
      return;
    }
    const states: ChargeState[] = charges.map((c, i) => {
      const count = result.counts[i] ?? 0;
      return {
        ...c,
        weight: weights[i]!,
        count,
        remaining: Math.max(0, c.max - count),
        resetMs: windows[i]!.end,
      };
    });
    const hit = states.filter((s) => s.count + s.weight > s.max);
    const shown = mostRestrictive(result.allowed || hit.length === 0 ? states : hit);
    reply.header('X-RateLimit-Limit', String(shown.max));
    reply.header('X-RateLimit-Remaining', String(shown.remaining));
    reply.header('X-RateLimit-Reset', String(shown.resetMs / 1000));
    if (!result.allowed) {
      metrics.rateLimited.labels(limitLabel(shown)).inc();
      throw new AppError('rate_limited', `Rate limit exceeded: ${shown.max} per 1 ${shown.window}`, {
        'Retry-After': String(Math.max(1, Math.ceil((shown.resetMs - at) / 1000))),
      });
    }
  }

  /**
   * The limits of an /api/v1 request, once authentication has set (or not) the principal: the plan
   * allowance of the user or of the client IP, and the route's own stricter limit.
   */
  async function limitApiRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const { principal } = request;
    const { rateLimit, heavy } = request.routeOptions.config;
    const weight = heavy || isLargePage(request) ? HEAVY_WEIGHT : 1;
    const subject = principal ? userSubject(principal) : ipSubject(request.ip);
    const charges = allowanceCharges(subject, weight);
    if (rateLimit) {
      const who = rateLimit.per === 'user' && principal ? `user:${principal.userId}` : `ip:${request.ip}`;
      charges.push({
        key: `endpoint:${request.method}:${request.routeOptions.url}:${who}`,
        max: rateLimit.perMinute,
        window: 'minute',
        weight: 1,
      });
    }
    await charge(request, reply, charges);
  }

  return { charge, limitApiRequest };
}

/** The metric's name of a limit: plan_minute, plan_hour, scim_minute, scim_hour or endpoint. */
function limitLabel(charge: Charge): string {
  if (charge.key.startsWith('endpoint:')) return 'endpoint';
  return `${charge.key.startsWith('plan:scim:') ? 'scim' : 'plan'}_${charge.window}`;
}

/**
 * The limit closest to refusing: the fewest requests left, then the one that resets last. When a
 * request is refused it is chosen among the limits it hit, so Retry-After waits for all of them.
 */
function mostRestrictive(states: ChargeState[]): ChargeState {
  return states.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetMs > a.resetMs) ? b : a,
  );
}

/** `page_size` > 100 (docs/contract.md §4, fixed); read before validation, so any form that parses as a number. */
function isLargePage(request: FastifyRequest): boolean {
  const raw = (request.query as Record<string, unknown> | undefined)?.page_size;
  return [raw].flat().some((value) => Number(value) > LARGE_PAGE);
}

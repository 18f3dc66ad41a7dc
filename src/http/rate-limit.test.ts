// Rate limits over HTTP on the whole app, once with in-memory and once with Redis counters: the
// X-RateLimit-* headers, 429 with Retry-After, both windows and an Enterprise organization's own
// limits, heavy calls, one allowance per user, the sign-in limits per client address, and exactly 60
// of 100 parallel requests let through. Proxies and the OpenAPI description: rate-limit.edges.test.ts.
import type { AddressInfo } from 'node:net';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../test/support/app.ts';
import {
  createTestRedisStore,
  nextWindow,
  redisAvailable,
  type TestRedisStore,
} from '../../test/support/rate-limits.ts';
import { cliActor } from '../core/actors.ts';
import { createAuditService } from '../modules/audit/audit.service.ts';
import { createBillingService } from '../modules/billing/billing.service.ts';
import { createMemoryRateLimitStore, type RateLimitStore } from './rate-limit-store.ts';

const redisUp = await redisAvailable();

const MINUTE = 60_000;
const HOUR = 3_600_000;
const MISSING = '00000000-0000-4000-8000-000000000000';
const BAD_KEY = `ak_AAAAAAAA_${'b'.repeat(40)}`;

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON body of any route
  body: any;
}

/** The three headers as numbers, after checking that each is an integer written plainly. */
function limits(answer: Answer): { limit: number; remaining: number; reset: number } {
  const read = (name: string) => {
    const value = answer.headers[name];
    expect(value, `${name} on a ${answer.status}`).toMatch(/^\d+$/);
    return Number(value);
  };
  return {
    limit: read('x-ratelimit-limit'),
    remaining: read('x-ratelimit-remaining'),
    reset: read('x-ratelimit-reset'),
  };
}

interface SuiteStore {
  /** The store, made with the app's clock. */
  make(now: () => Date): RateLimitStore;
  done(): Promise<void>;
}

function rateLimitSuite(name: string, open: () => Promise<SuiteStore>) {
  describe(`rate limits over HTTP (${name} counters)`, () => {
    let t: TestApp;
    let done: () => Promise<void>;
    let orgId: string;
    let owner: Client;
    let ip = 0;
    /** A client address of its own for each anonymous scenario. */
    const nextIp = () => `198.51.100.${++ip}`;

    const inject = async (options: InjectOptions): Promise<Answer> => {
      const response = await t.app.inject(options);
      return {
        status: response.statusCode,
        headers: response.headers,
        body: response.body ? JSON.parse(response.body) : undefined,
      };
    };
    const billing = () =>
      createBillingService({
        db: t.store.db,
        audit: createAuditService({ db: t.store.db, now: t.now }),
        now: t.now,
      });

    beforeAll(async () => {
      const opened = await open();
      done = opened.done;
      t = await createTestApp({ rateLimitStore: opened.make });
      ({ orgId, owner } = await t.createOrg('Limited'));
    });
    afterAll(async () => {
      await t.close();
      await done();
    });
    // Every test starts in a fresh minute, so the harness's own sign-ins (from 127.0.0.1, 5 a minute
    // on POST /auth/login) and earlier tests leave no counts behind.
    beforeEach(() => {
      nextWindow(t, MINUTE);
    });

    it('puts exact X-RateLimit-* headers on 200, 401, 403, 404 and 422 answers of /api/v1 only', async () => {
      const member = await t.createUser(orgId, 'member');
      const reset = nextWindow(t, MINUTE);
      const answers = [
        await member.get('/api/v1/auth/me'),
        await member.get('/api/v1/nope'),
        await member.get(`/api/v1/projects/${MISSING}`),
        await member.get('/api/v1/projects?page_size=abc'),
        await member.get('/api/v1/audit'),
        await member.post('/api/v1/projects', { name: 42 }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 404, 404, 422, 403, 422]);
      expect(answers[1]!.body).toEqual({ detail: 'Not Found' });
      expect(answers[4]!.body).toEqual({ detail: 'This action requires the organization admin role' });
      expect(answers.map(limits)).toEqual(
        [59, 58, 57, 56, 55, 54].map((remaining) => ({ limit: 60, remaining, reset })),
      );

      // Anonymous and failed credentials count per client IP, Starter values.
      const from = nextIp();
      const anonymous = [
        await inject({ method: 'GET', url: '/api/v1/auth/me', remoteAddress: from }),
        await inject({
          method: 'GET',
          url: '/api/v1/auth/me',
          remoteAddress: from,
          headers: { authorization: `Bearer ${BAD_KEY}` },
        }),
        await inject({
          method: 'GET',
          url: '/api/v1/auth/me',
          remoteAddress: from,
          cookies: { session: 'dead' },
        }),
        await inject({ method: 'GET', url: '/api/v1/nope', remoteAddress: from }),
      ];
      expect(anonymous.map((a) => a.status)).toEqual([401, 401, 401, 404]);
      expect(anonymous[1]!.body).toEqual({ detail: 'Invalid API key' });
      expect(anonymous.map(limits)).toEqual(
        [59, 58, 57, 56].map((remaining) => ({ limit: 60, remaining, reset })),
      );

      for (const url of ['/healthz', '/openapi.json', '/api/nope']) {
        const outside = await inject({ method: 'GET', url, remoteAddress: from });
        expect(outside.headers['x-ratelimit-limit'], url).toBeUndefined();
      }
    });

    it('answers 429 with the exact body and Retry-After once the minute is used up, and not after it', async () => {
      const key = await t.keyClient(await t.createUser(orgId, 'member'), ['read']);
      const reset = nextWindow(t, MINUTE);
      for (let i = 59; i >= 0; i--) {
        const ok = await key.get('/api/v1/auth/me');
        expect(ok.status).toBe(200);
        expect(limits(ok)).toEqual({ limit: 60, remaining: i, reset });
      }
      const before = t.now().getTime();
      const refused = await key.get('/api/v1/auth/me');
      const after = t.now().getTime();
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ detail: 'Rate limit exceeded: 60 per 1 minute' });
      expect(limits(refused)).toEqual({ limit: 60, remaining: 0, reset });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(String(refused.headers['retry-after'])).toMatch(/^\d+$/);
      expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((reset * 1000 - after) / 1000));
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil((reset * 1000 - before) / 1000));
      expect(retryAfter).toBeGreaterThanOrEqual(1);

      // Just before the window ends: still refused, Retry-After at least 1.
      t.advance(reset * 1000 - t.now().getTime() - 300);
      const last = await key.get('/api/v1/auth/me');
      expect(last.status).toBe(429);
      expect(last.headers['retry-after']).toBe('1');

      t.advance(400);
      const next = await key.get('/api/v1/auth/me');
      expect(next.status).toBe(200);
      expect(limits(next)).toEqual({ limit: 60, remaining: 59, reset: reset + 60 });
    });

    it('counts the hour window too, and an Enterprise organization’s own limits take effect', async () => {
      const { orgId: bigId, owner: big } = await t.createOrg('Big');
      const service = billing();
      await service.setPlan(cliActor('set-plan'), {
        org: bigId,
        plan: 'enterprise',
        perMinute: 10,
        perHour: 15,
      });
      const hourEnd = nextWindow(t, HOUR);
      // The end of the minute the clock is in now (real time moves the clock on by a few ms).
      const minuteEnd = (Math.floor(t.now().getTime() / MINUTE) * MINUTE + MINUTE) / 1000;

      for (let i = 9; i >= 0; i--) expect(limits(await big.get('/api/v1/auth/me')).remaining).toBe(i);
      const minuteRefused = await big.get('/api/v1/auth/me');
      expect(minuteRefused.status).toBe(429);
      expect(minuteRefused.body).toEqual({ detail: 'Rate limit exceeded: 10 per 1 minute' });
      expect(limits(minuteRefused)).toEqual({ limit: 10, remaining: 0, reset: minuteEnd });

      t.advance(MINUTE);
      // The hour now has 5 left of 15: fewer than the minute's 10, so the hour is what the headers show.
      for (let i = 4; i >= 0; i--) {
        const ok = await big.get('/api/v1/auth/me');
        expect(ok.status).toBe(200);
        expect(limits(ok)).toEqual({ limit: 15, remaining: i, reset: hourEnd });
      }
      const hourRefused = await big.get('/api/v1/auth/me');
      expect(hourRefused.status).toBe(429);
      expect(hourRefused.body).toEqual({ detail: 'Rate limit exceeded: 15 per 1 hour' });
      expect(limits(hourRefused)).toEqual({ limit: 15, remaining: 0, reset: hourEnd });
      const retryAfter = Number(hourRefused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(HOUR / 1000 - 2 * 60 - 5);
      expect(retryAfter).toBeLessThanOrEqual(HOUR / 1000 - 60);

      // A new minute does not help; a new hour does.
      t.advance(MINUTE);
      expect((await big.get('/api/v1/auth/me')).status).toBe(429);
      t.advance(hourEnd * 1000 - t.now().getTime() + 1_000);
      expect(limits(await big.get('/api/v1/auth/me'))).toMatchObject({ limit: 10, remaining: 9 });

      // Back to the plans' own values.
      await service.setPlan(cliActor('set-plan'), { org: bigId, plan: 'pro' });
      expect(limits(await big.get('/api/v1/auth/me'))).toMatchObject({ limit: 300 });
      await service.setPlan(cliActor('set-plan'), { org: bigId, plan: 'enterprise' });
      expect(limits(await big.get('/api/v1/auth/me'))).toMatchObject({ limit: 1200 });
      // Other organizations are untouched.
      expect(limits(await owner.get('/api/v1/auth/me'))).toMatchObject({ limit: 60 });
    });

    it('counts a list with page_size over 100 as 10, and a refused heavy call costs nothing', async () => {
      const member = await t.createUser(orgId, 'member');
      nextWindow(t, MINUTE);
      const remaining = async (url: string) => {
        const answer = await member.get(url);
        return [answer.status, limits(answer).remaining];
      };
      expect(await remaining('/api/v1/projects?page_size=101')).toEqual([200, 50]);
      expect(await remaining('/api/v1/projects?page_size=100')).toEqual([200, 49]);
      expect(await remaining('/api/v1/projects?page_size=200')).toEqual([200, 39]);
      expect(await remaining('/api/v1/auth/sessions?page_size=150')).toEqual([200, 29]);
      // Refused by validation (page_size ≤ 200), but already counted as what it asked for.
      expect(await remaining('/api/v1/projects?page_size=500')).toEqual([422, 19]);
      expect(await remaining('/api/v1/projects?page_size=101')).toEqual([200, 9]);
      const heavy = await member.get('/api/v1/projects?page_size=101');
      expect(heavy.status).toBe(429);
      expect(heavy.body).toEqual({ detail: 'Rate limit exceeded: 60 per 1 minute' });
      expect(limits(heavy).remaining).toBe(9);
      // The light calls still fit.
      for (let i = 8; i >= 0; i--) expect(await remaining('/api/v1/projects')).toEqual([200, i]);
      expect((await member.get('/api/v1/projects')).status).toBe(429);
    });

    it("shares one allowance between a user's sessions and keys; other users count on their own", async () => {
      const first = await t.createUser(orgId, 'member');
      const second = await t.login(first.user.email);
      const readKey = await t.keyClient(first, ['read']);
      const adminKey = await t.keyClient(second, ['admin']);
      const other = await t.createUser(orgId, 'member');
      nextWindow(t, MINUTE);

      const callers = [first, readKey, second, adminKey];
      for (let i = 0; i < 60; i++) {
        const answer = await callers[i % callers.length]!.get('/api/v1/auth/me');
        expect(answer.status).toBe(200);
        expect(limits(answer).remaining).toBe(59 - i);
      }
      for (const caller of callers) {
        const refused = await caller.get('/api/v1/auth/me');
        expect(refused.status).toBe(429);
        expect(refused.body).toEqual({ detail: 'Rate limit exceeded: 60 per 1 minute' });
      }
      const independent = await other.get('/api/v1/auth/me');
      expect(independent.status).toBe(200);
      expect(limits(independent).remaining).toBe(59);
    });

    it('limits POST /auth/login and POST /auth/login/2fa to 5 a minute per client IP', async () => {
      const member = await t.createUser(orgId, 'member');
      const reset = nextWindow(t, MINUTE);
      const from = nextIp();
      const login = (password: string, remoteAddress = from) =>
        inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          remoteAddress,
          payload: { email: member.user.email, password },
        });
      for (let i = 4; i >= 0; i--) {
        const wrong = await login('wrong password');
        expect(wrong.status).toBe(401);
        expect(wrong.body).toEqual({ detail: 'Invalid email or password' });
        expect(limits(wrong)).toEqual({ limit: 5, remaining: i, reset });
      }
      const refused = await login('correct horse battery');
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ detail: 'Rate limit exceeded: 5 per 1 minute' });
      expect(limits(refused)).toEqual({ limit: 5, remaining: 0, reset });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['set-cookie']).toBeUndefined();

      // Another address is not affected, and other routes from the same address are not either.
      const elsewhere = await login('correct horse battery', nextIp());
      expect(elsewhere.status).toBe(200);
      expect(limits(elsewhere)).toMatchObject({ limit: 5, remaining: 4 });
      const me = await inject({ method: 'GET', url: '/api/v1/auth/me', remoteAddress: from });
      expect(me.status).toBe(401);
      // 5 sign-ins and this call; the refused sign-in was not counted.
      expect(limits(me)).toEqual({ limit: 60, remaining: 54, reset });

      // The second step has its own 5 a minute.
      const step = () =>
        inject({
          method: 'POST',
          url: '/api/v1/auth/login/2fa',
          remoteAddress: from,
          payload: { partial_token: 'x'.repeat(43), code: '123456' },
        });
      for (let i = 4; i >= 0; i--) {
        const answer = await step();
        expect(answer.status).toBe(401);
        expect(limits(answer)).toEqual({ limit: 5, remaining: i, reset });
      }
      const stepRefused = await step();
      expect(stepRefused.status).toBe(429);
      expect(stepRefused.body).toEqual({ detail: 'Rate limit exceeded: 5 per 1 minute' });

      t.advance(MINUTE);
      expect((await login('correct horse battery')).status).toBe(200);
    });

    it('limits failed credentials per client IP like any anonymous call', async () => {
      nextWindow(t, MINUTE);
      const from = nextIp();
      const guess = () =>
        inject({
          method: 'GET',
          url: '/api/v1/projects',
          remoteAddress: from,
          headers: { authorization: `Bearer ${BAD_KEY}` },
        });
      for (let i = 59; i >= 0; i--) expect(limits(await guess()).remaining).toBe(i);
      const refused = await guess();
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ detail: 'Rate limit exceeded: 60 per 1 minute' });
    });

    it('lets exactly 60 of 100 parallel requests through over real HTTP', async () => {
      const key = await t.keyClient(await t.createUser(orgId, 'member'), ['read']);
      const reset = nextWindow(t, MINUTE);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const response = await fetch(`http://127.0.0.1:${port}/api/v1/auth/me`, {
            headers: { authorization: `Bearer ${key.secret}` },
          });
          return {
            status: response.status,
            headers: Object.fromEntries(response.headers),
            body: await response.json(),
          };
        }),
      );
      const elapsed = performance.now() - started;
      console.info(`[rate-limit ${name}] 100 parallel requests over HTTP in ${elapsed.toFixed(0)} ms`);
      const ok = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      expect(ok).toHaveLength(60);
      expect(refused).toHaveLength(40);
      expect(new Set(ok.map((a) => limits(a).remaining))).toEqual(
        new Set(Array.from({ length: 60 }, (_, i) => i)),
      );
      for (const answer of refused) {
        expect(answer.body).toEqual({ detail: 'Rate limit exceeded: 60 per 1 minute' });
        expect(limits(answer)).toEqual({ limit: 60, remaining: 0, reset });
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    });
  });
}

rateLimitSuite('memory', async () => ({
  make: (now) => createMemoryRateLimitStore({ now }),
  async done() {},
}));

if (redisUp) {
  rateLimitSuite('redis', async () => {
    const redis: TestRedisStore = await createTestRedisStore();
    return { make: () => redis.store, done: () => redis.cleanup() };
  });
}

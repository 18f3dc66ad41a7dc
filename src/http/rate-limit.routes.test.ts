// The limiter's route-level mechanisms on a small Fastify app of their own: routes flagged heavy,
// per-user endpoint limits (patch execute and the like, whose routes come later), the SCIM
// per-organization allowance, and what happens when the counters are unreachable.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../store/tables.ts';
import { registerErrorHandlers } from './errors.ts';
import { allowanceCharges, createRateLimiter, ENDPOINT_LIMITS, orgScimSubject } from './rate-limit.ts';
import { createMemoryRateLimitStore, type RateLimitStore } from './rate-limit-store.ts';

const START = Date.parse('2031-05-06T07:08:00Z');

interface Setup {
  store?: RateLimitStore;
  plans?: Record<string, { plan: Plan; perMinute?: number }>;
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Routes behind the limiter; the `x-user` header stands in for authentication. */
async function build(setup: Setup = {}) {
  let at = START + 1_000;
  const now = () => new Date(at);
  const limiter = createRateLimiter({ store: setup.store ?? createMemoryRateLimitStore({ now }), now });
  app = Fastify();
  registerErrorHandlers(app);
  app.decorateRequest('principal', null);
  // Like /api/v1: the caller's plan allowance (the header stands in for authentication).
  await app.register(async (api) => {
    api.addHook('onRequest', async (request, reply) => {
      const user = request.headers['x-user'];
      if (typeof user === 'string') {
        const { plan = 'starter', perMinute } = setup.plans?.[user] ?? {};
        request.principal = {
          userId: user,
          orgId: 'org',
          orgRole: 'member',
          email: `${user}@example.com`,
          via: 'api_key',
          scopes: ['admin'],
          sessionId: null,
          apiKeyId: 'key',
          plan,
          customLimits: { perMinute: perMinute ?? null, perHour: null },
        };
      }
      await limiter.limitApiRequest(request, reply);
    });
    api.get('/light', async () => ({ ok: true }));
    api.post(
      '/patches/:id/execute',
      { config: { heavy: true, rateLimit: ENDPOINT_LIMITS.patchExecute } },
      async () => ({ ok: true }),
    );
    api.post('/snapshot', { config: { heavy: true } }, async () => ({ ok: true }));
  });
  // Like /scim/v2 will be: its own hook, counting per organization once the SCIM token names it.
  await app.register(async (scim) => {
    scim.addHook('onRequest', async (request, reply) => {
      const { org } = request.params as { org: string };
      await limiter.charge(request, reply, allowanceCharges(orgScimSubject(org), 1));
    });
    scim.post('/scim/:org', async () => ({ ok: true }));
  });
  await app.ready();
  const call = async (method: 'GET' | 'POST', url: string, user?: string) => {
    const response = await app!.inject({ method, url, headers: user ? { 'x-user': user } : {} });
    return {
      status: response.statusCode,
      body: response.json(),
      limit: response.headers['x-ratelimit-limit'],
      remaining: response.headers['x-ratelimit-remaining'],
      reset: response.headers['x-ratelimit-reset'],
      retryAfter: response.headers['retry-after'],
    };
  };
  return { call, advance: (ms: number) => (at += ms) };
}

describe('rate limits: route configuration', () => {
  it('counts a heavy route 10 against the plan allowance', async () => {
    const { call } = await build();
    expect(await call('POST', '/snapshot', 'ann')).toMatchObject({
      status: 200,
      limit: '60',
      remaining: '50',
    });
    expect(await call('GET', '/light', 'ann')).toMatchObject({ status: 200, limit: '60', remaining: '49' });
  });

  it('applies a per-user endpoint limit on top of the plan allowance, showing whichever is closer', async () => {
    const { call, advance } = await build({ plans: { big: { plan: 'enterprise' } } });
    // Enterprise: 1200 a minute, so only the endpoint's 10 a minute bites.
    for (let i = 9; i >= 0; i--) {
      expect(await call('POST', '/patches/1/execute', 'big')).toMatchObject({
        status: 200,
        limit: '10',
        remaining: String(i),
        reset: String((START + 60_000) / 1000),
      });
    }
    expect(await call('POST', '/patches/1/execute', 'big')).toMatchObject({
      status: 429,
      body: { detail: 'Rate limit exceeded: 10 per 1 minute' },
      retryAfter: '59',
    });
    // Per route, not per URL: another patch is the same endpoint.
    expect((await call('POST', '/patches/2/execute', 'big')).status).toBe(429);
    // Another user has their own 10; other routes of the same user are not limited by it.
    expect(await call('POST', '/patches/1/execute', 'bob')).toMatchObject({ status: 200, remaining: '9' });
    expect(await call('GET', '/light', 'big')).toMatchObject({
      status: 200,
      limit: '1200',
      remaining: '1099',
    });
    advance(60_000);
    expect(await call('POST', '/patches/1/execute', 'big')).toMatchObject({ status: 200, remaining: '9' });
  });

  it('shows the plan allowance once it is closer than the endpoint limit (heavy calls on Starter)', async () => {
    const { call } = await build();
    const seen = [];
    for (let i = 0; i < 7; i++) {
      const { status, limit, remaining, body } = await call('POST', '/patches/1/execute', 'sue');
      seen.push([status, limit, remaining, status === 429 ? body.detail : null]);
    }
    expect(seen).toEqual([
      [200, '10', '9', null], // plan 50 left, endpoint 9
      [200, '10', '8', null], // plan 40
      [200, '10', '7', null], // plan 30
      [200, '10', '6', null], // plan 20
      [200, '10', '5', null], // plan 10
      [200, '60', '0', null], // plan 0, endpoint 4
      [429, '60', '0', 'Rate limit exceeded: 60 per 1 minute'],
    ]);
  });

  it('never lets a weight exceed a whole window: a heavy call fits a custom limit below 10', async () => {
    const { call } = await build({ plans: { tiny: { plan: 'enterprise', perMinute: 5 } } });
    expect(await call('POST', '/snapshot', 'tiny')).toMatchObject({
      status: 200,
      limit: '5',
      remaining: '0',
    });
    expect((await call('GET', '/light', 'tiny')).status).toBe(429);
  });

  it('counts anonymous calls per client IP with the Starter values', async () => {
    const { call } = await build();
    expect(await call('GET', '/light')).toMatchObject({ limit: '60', remaining: '59' });
    expect(await call('GET', '/light', 'ann')).toMatchObject({ limit: '60', remaining: '59' });
    expect(await call('GET', '/light')).toMatchObject({ limit: '60', remaining: '58' });
  });

  it('counts SCIM calls per organization, 300 a minute and no hour window', async () => {
    const { call } = await build();
    for (let i = 0; i < 299; i++) await call('POST', '/scim/acme');
    expect(await call('POST', '/scim/acme')).toMatchObject({ status: 200, limit: '300', remaining: '0' });
    expect(await call('POST', '/scim/acme')).toMatchObject({
      status: 429,
      body: { detail: 'Rate limit exceeded: 300 per 1 minute' },
    });
    expect(await call('POST', '/scim/other')).toMatchObject({ status: 200, remaining: '299' });
  });

  it('serves requests uncounted, without the headers, while the counters are unreachable', async () => {
    const failing: RateLimitStore = {
      consume: async () => {
        throw new Error('connection lost');
      },
      close: async () => {},
    };
    const { call } = await build({ store: failing });
    expect(await call('GET', '/light', 'ann')).toMatchObject({ status: 200, limit: undefined });
  });
});

// Found from outside: after `set-plan` run by another process, the first request a process served
// was still counted against the old plan (`X-RateLimit-Limit: 60` instead of the new 500): the list
// of projects reads the credential epoch in its own query, so its cached principal (and the plan in
// it) was used to count the request before the epoch said it was stale. docs/contract.md §11.3: a plan change
// takes effect at once. Two apps on one PostgreSQL store stand for two processes, each with its own
// cache; the plan is changed by the operator's own `set-plan` command through the first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { compose } from '../../src/compose.ts';
import { createMemoryRateLimitStore, type RateLimitStore } from '../../src/http/rate-limit-store.ts';
import type { App } from '../../src/http/types.ts';
import { type Client, createTestApp, SECRET_KEY, type TestApp, testConfig } from '../support/app.ts';
import { pgAvailable } from '../support/databases.ts';
import { createUncountedRateLimitStore } from '../support/rate-limits.ts';

/** Routes of both kinds: one confirming its cached principal in its own query, and one before it. */
const ROUTES = ['/api/v1/projects', '/api/v1/auth/me', '/api/v1/api-keys'];

describe.skipIf(!(await pgAvailable()))('a plan change reaches every process at once', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let session: string;
  let key: string;
  /** Another process: its own composition, credential cache and epoch reader on the same store. */
  let peer: App;
  let closePeer: () => Promise<void>;

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Plan changes'));
    key = (await t.keyClient(owner, ['read'])).secret;
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: owner.user.email, password: 'correct horse battery' },
    });
    session = login.cookies.find((c) => c.name === 'session')?.value ?? '';
    ({ app: peer, close: closePeer } = await otherProcess(createUncountedRateLimitStore()));
  });

  async function otherProcess(
    rateLimitStore: RateLimitStore,
  ): Promise<{ app: App; close: () => Promise<void> }> {
    const composition = await compose({
      config: { ...testConfig({}), logLevel: 'silent' },
      jobs: 'none',
      store: t.store,
      migrate: false,
      now: t.now,
      secretKey: SECRET_KEY,
      passwords: t.composition.passwords,
      rateLimitStore,
    });
    const app = await buildApp(composition);
    await app.ready();
    return {
      app,
      close: async () => {
        await app.close();
        await composition.close();
      },
    };
  }
  afterAll(async () => {
    await closePeer?.();
    await t?.close();
  });

  /** The operator's command, answered by the first process (as `npm run cli -- set-plan` is). */
  async function setPlan(...args: string[]): Promise<void> {
    const command = t.composition.modules.flatMap((m) => m.commands ?? []).find((c) => c.name === 'set-plan');
    if (!command) throw new Error('the set-plan command is not registered');
    await command.run(['--org', orgId, ...args]);
  }

  async function limitOnPeer(url: string, credential: 'session' | 'key', on = peer): Promise<string> {
    const response = await on.inject({
      method: 'GET',
      url,
      ...(credential === 'key' ? { headers: { authorization: `Bearer ${key}` } } : { cookies: { session } }),
    });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    return String(response.headers['x-ratelimit-limit']);
  }

  /** Every route, both credentials, twice: the principals are cached on the peer under the plan. */
  async function warm(expected: string): Promise<void> {
    for (let round = 0; round < 2; round++)
      for (const url of ROUTES)
        for (const credential of ['session', 'key'] as const)
          expect(await limitOnPeer(url, credential), `${url} by ${credential}`).toBe(expected);
  }

  for (const url of ROUTES)
    for (const credential of ['session', 'key'] as const)
      it(`counts the very next ${url} by ${credential} against the new plan, up and down`, async () => {
        await setPlan('--plan', 'starter');
        await warm('60');
        await setPlan('--plan', 'enterprise', '--per-minute', '500');
        expect(await limitOnPeer(url, credential)).toBe('500');
        await warm('500');
        await setPlan('--plan', 'starter');
        expect(await limitOnPeer(url, credential)).toBe('60');
      });

  it('counts a request refused before its read, and lifts a refusal as soon as the plan is raised', async () => {
    const counted = await otherProcess(createMemoryRateLimitStore({ now: t.now }));
    try {
      await setPlan('--plan', 'starter');
      const projects = (query = '') =>
        counted.app.inject({ method: 'GET', url: `/api/v1/projects${query}`, cookies: { session } });
      // A fresh minute, so that the count starts from nothing.
      t.advance(60_000 - (t.now().getTime() % 60_000));
      expect((await projects()).headers['x-ratelimit-remaining']).toBe('59');
      // Cached now: the next ones take the confirmed-read path. An invalid query is counted too.
      const invalid = await projects('?page=abc');
      expect(invalid.statusCode).toBe(422);
      expect(invalid.headers['x-ratelimit-remaining']).toBe('58');
      for (let i = 0; i < 58; i++) expect((await projects()).statusCode).toBe(200);
      const refused = await projects();
      expect(refused.statusCode).toBe(429);
      expect(JSON.parse(refused.body)).toEqual({ detail: 'Rate limit exceeded: 60 per 1 minute' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      await setPlan('--plan', 'enterprise', '--per-minute', '500');
      const lifted = await projects();
      expect(lifted.statusCode).toBe(200);
      expect(lifted.headers['x-ratelimit-limit']).toBe('500');
    } finally {
      await counted.close();
      await setPlan('--plan', 'starter');
    }
  });
});

// The store going away and coming back (docs/contract.md §2): /readyz and every request answer 503 with
// `{detail}` and Retry-After while the store is unreachable, and the same process serves again
// once it is back, without a restart. The store is reached through a TCP forwarder the test cuts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_KEY, testConfig } from '../../test/support/app.ts';
import { createTestPgDatabase, type TestPgDatabase } from '../../test/support/databases.ts';
import { createUncountedRateLimitStore } from '../../test/support/rate-limits.ts';
import { freePort, tcpForwarder } from '../../test/support/targets.ts';
import { buildApp } from '../app.ts';
import { type Composition, compose } from '../compose.ts';
import { createPasswordHasher } from '../security/passwords.ts';
import { openStore } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import type { App } from './types.ts';

describe('the store unavailable, then back', () => {
  let database: TestPgDatabase | undefined;
  let forwarder: { port: number; close(): Promise<void> } | undefined;
  let composition: Composition | undefined;
  let app: App | undefined;
  let bearer = '';
  let port = 0;
  let upstream: { host: string; port: number };

  beforeAll(async () => {
    database = await createTestPgDatabase();
    if (!database) return;
    const direct = await openStore({ kind: 'postgres', url: database.url });
    await migrateToLatest(direct.db);
    await direct.close();
    const url = new URL(database.url);
    upstream = { host: url.hostname, port: Number(url.port || 5432) };
    port = await freePort();
    forwarder = await tcpForwarder({ host: '127.0.0.1', port }, upstream);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    composition = await compose({
      config: { ...testConfig({}), logLevel: 'silent' },
      jobs: 'none',
      store: await openStore({ kind: 'postgres', url: url.toString() }),
      migrate: false,
      secretKey: SECRET_KEY,
      passwords: await createPasswordHasher({ memoryKib: 64, iterations: 1 }),
      rateLimitStore: createUncountedRateLimitStore(),
    });
    app = await buildApp(composition);
    await app.ready();
    const email = `outage-${Date.now().toString(36)}@example.com`;
    await composition.orgs.createWithOwner({ orgName: 'Outage', email, password: 'a long enough password' });
    const login = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email, password: 'a long enough password' },
    });
    const cookies = Object.fromEntries(login.cookies.map((c) => [c.name, c.value]));
    const key = await app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      cookies,
      headers: { 'x-csrf-token': cookies.csrf_token ?? '' },
      payload: { name: 'outage', scopes: ['read'] },
    });
    bearer = `Bearer ${key.json().secret}`;
  });
  afterAll(async () => {
    await app?.close();
    await composition?.close();
    await composition?.store.close();
    await forwarder?.close();
    await database?.drop();
  });

  const projects = () =>
    app?.inject({ method: 'GET', url: '/api/v1/projects', headers: { authorization: bearer } });
  const ready = () => app?.inject({ method: 'GET', url: '/readyz' });

  it('answers 503 with Retry-After while the store is away, and serves again once it is back', async (context) => {
    if (!database) return context.skip();
    expect((await projects())?.statusCode).toBe(200);
    expect((await ready())?.statusCode).toBe(200);

    await forwarder?.close();
    const down = await ready();
    expect(down?.statusCode).toBe(503);
    expect(Number(down?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The first request may still be on a connection the cut closed under it; the next ones find none.
    await projects();
    const refused = await projects();
    expect(refused?.statusCode).toBe(503);
    expect(refused?.json()).toEqual({ detail: 'The service store is unavailable: retry later' });
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    forwarder = await tcpForwarder({ host: '127.0.0.1', port }, upstream);
    const deadline = Date.now() + 10_000;
    while ((await ready())?.statusCode !== 200 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await ready())?.statusCode).toBe(200);
    expect((await projects())?.statusCode).toBe(200);
  });
});

import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, TEST_PASSWORD, type TestApp } from '../../test/support/app.ts';
import { createMemoryRateLimitStore } from './rate-limit-store.ts';

const APP = 'https://app.example.com';
const LOCAL = 'http://localhost:5173';

/** Every CORS header of a response. */
function corsHeaders(response: LightMyRequestResponse): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => name.startsWith('access-control-')),
  );
}

const list = (value: unknown) =>
  String(value)
    .split(',')
    .map((item) => item.trim().toLowerCase());

describe('CORS for the origins in CORS_ORIGINS', () => {
  let t: TestApp;
  let owner: Client;
  let cookies: Record<string, string>;

  const inject = (options: InjectOptions) => t.app.inject(options);
  const preflight = (origin: string, method = 'POST', url = '/api/v1/projects') =>
    inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type,x-csrf-token',
      },
    });

  beforeAll(async () => {
    t = await createTestApp({
      // Written as an operator might: upper case and an explicit default port still match.
      corsOrigins: ['HTTPS://App.Example.com:443', LOCAL],
      rateLimitStore: (now) => createMemoryRateLimitStore({ now }),
    });
    ({ owner } = await t.createOrg('Cors'));
    const login = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: owner.user.email, password: TEST_PASSWORD },
    });
    cookies = Object.fromEntries(login.cookies.map((c) => [c.name, c.value]));
  });
  afterAll(() => t.close());

  it('answers the preflight of an allowed origin with credentials, methods and headers', async () => {
    for (const origin of [APP, LOCAL]) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const response = await preflight(origin, method);
        expect(response.statusCode, `${origin} ${method}`).toBe(204);
        const headers = corsHeaders(response);
        expect(headers['access-control-allow-origin']).toBe(origin);
        expect(headers['access-control-allow-credentials']).toBe('true');
        expect(list(headers['access-control-allow-methods'])).toEqual(
          expect.arrayContaining(['get', 'post', 'put', 'patch', 'delete']),
        );
        expect(list(headers['access-control-allow-headers'])).toEqual(
          expect.arrayContaining(['x-csrf-token', 'authorization', 'content-type']),
        );
        expect(headers['access-control-max-age']).toBe('600');
        expect(list(response.headers.vary)).toContain('origin');
      }
    }
  });

  it('lets an allowed origin read answers made with the session cookie, rate-limit headers included', async () => {
    const me = await inject({ method: 'GET', url: '/api/v1/auth/me', headers: { origin: APP }, cookies });
    expect(me.statusCode).toBe(200);
    expect(me.json().email).toBe(owner.user.email);
    const headers = corsHeaders(me);
    expect(headers['access-control-allow-origin']).toBe(APP);
    expect(headers['access-control-allow-credentials']).toBe('true');
    expect(list(headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining([
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'retry-after',
        'x-request-id',
      ]),
    );
    expect(me.headers['x-ratelimit-limit']).toBe('60');

    // A mutating call with the CSRF header goes through too.
    const created = await inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { origin: LOCAL, 'x-csrf-token': cookies.csrf_token! },
      cookies,
      payload: { name: 'From the browser' },
    });
    expect(created.statusCode).toBe(201);
    expect(corsHeaders(created)['access-control-allow-origin']).toBe(LOCAL);
  });

  it('keeps the CORS headers on errors, so the web app can read a 401 or a 429', async () => {
    const unauthenticated = await inject({ method: 'GET', url: '/api/v1/auth/me', headers: { origin: APP } });
    expect(unauthenticated.statusCode).toBe(401);
    expect(corsHeaders(unauthenticated)['access-control-allow-origin']).toBe(APP);

    const login = () =>
      inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { origin: APP },
        remoteAddress: '192.0.2.44',
        payload: { email: owner.user.email, password: 'wrong password' },
      });
    for (let i = 0; i < 5; i++) expect((await login()).statusCode).toBe(401);
    const limited = await login();
    expect(limited.statusCode).toBe(429);
    expect(corsHeaders(limited)).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
    });
  });

  it('sends no CORS header at all to any other origin, preflight or not', async () => {
    for (const origin of [
      'https://evil.example.com',
      'http://app.example.com',
      'https://app.example.com.evil.test',
      'https://app.example.com:8443',
      'null',
    ]) {
      const pre = await preflight(origin);
      expect(corsHeaders(pre), `preflight from ${origin}`).toEqual({});
      expect(pre.statusCode).toBe(404);
      const me = await inject({ method: 'GET', url: '/api/v1/auth/me', headers: { origin }, cookies });
      expect(me.statusCode).toBe(200);
      expect(corsHeaders(me), `GET from ${origin}`).toEqual({});
    }
    // Nor to a request without an Origin.
    expect(corsHeaders(await inject({ method: 'GET', url: '/api/v1/auth/me', cookies }))).toEqual({});
  });
});

describe('CORS without CORS_ORIGINS', () => {
  it('sends no CORS header to any origin', async () => {
    const t = await createTestApp();
    try {
      for (const origin of [APP, LOCAL]) {
        const pre = await t.app.inject({
          method: 'OPTIONS',
          url: '/api/v1/projects',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
        expect(corsHeaders(pre)).toEqual({});
        const get = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { origin } });
        expect(corsHeaders(get)).toEqual({});
      }
    } finally {
      await t.close();
    }
  });
});

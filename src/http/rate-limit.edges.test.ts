// Rate limits at the edges of the service: the client address a limit counts behind proxies
// (TRUSTED_PROXIES, X-Forwarded-For) over a real socket, and the limit headers and the 429 answer as
// the OpenAPI description documents them on every /api/v1 operation.
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/app.ts';
import { nextWindow } from '../../test/support/rate-limits.ts';
import { createMemoryRateLimitStore } from './rate-limit-store.ts';

const MINUTE = 60_000;

interface Operation {
  responses: Record<string, { headers?: Record<string, unknown>; $ref?: string }>;
}

describe('rate limits: the client address behind proxies (TRUSTED_PROXIES)', () => {
  /** An app on a real socket; every request comes from 127.0.0.1. */
  async function listening(trustedProxies: string[]) {
    const t = await createTestApp({
      trustedProxies,
      rateLimitStore: (now) => createMemoryRateLimitStore({ now }),
    });
    const email = (await t.createOrg()).owner.user.email;
    nextWindow(t, MINUTE);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const login = async (forwardedFor: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ email, password: 'wrong password' }),
      });
      return { status: response.status, remaining: response.headers.get('x-ratelimit-remaining') };
    };
    return { t, login };
  }

  /** The client addresses the audit log holds for failed sign-ins. */
  async function failedLoginAddresses(t: TestApp): Promise<Set<string | null>> {
    const audit = await t.store.db
      .selectFrom('audit_log')
      .select('ip')
      .where('action', '=', 'auth.login')
      .where('outcome', '=', 'failure')
      .execute();
    return new Set(audit.map((row) => row.ip));
  }

  it('ignores X-Forwarded-For from a client that is not a trusted proxy', async () => {
    const { t, login } = await listening(['10.0.0.0/8', '192.0.2.1']);
    try {
      // Five different "forwarded" addresses: all count against the real client, 127.0.0.1.
      const answers = [];
      for (let i = 1; i <= 6; i++) answers.push(await login(`203.0.113.${i}`));
      expect(answers).toEqual([
        { status: 401, remaining: '4' },
        { status: 401, remaining: '3' },
        { status: 401, remaining: '2' },
        { status: 401, remaining: '1' },
        { status: 401, remaining: '0' },
        { status: 429, remaining: '0' },
      ]);
      expect(await failedLoginAddresses(t)).toEqual(new Set(['127.0.0.1']));
    } finally {
      await t.close();
    }
  });

  it('uses the address a trusted proxy forwards, and not one its client made up', async () => {
    const { t, login } = await listening(['10.0.0.0/8', '127.0.0.0/8']);
    try {
      for (let i = 4; i >= 0; i--)
        expect(await login('203.0.113.7')).toEqual({ status: 401, remaining: String(i) });
      expect(await login('203.0.113.7')).toEqual({ status: 429, remaining: '0' });
      // Another forwarded client has its own allowance.
      expect(await login('203.0.113.8')).toEqual({ status: 401, remaining: '4' });
      // A client behind the proxy prepending an address of its own is still 203.0.113.7.
      expect(await login('198.18.0.1, 203.0.113.7')).toEqual({ status: 429, remaining: '0' });
      // Through a chain of trusted proxies the first untrusted address counts.
      expect(await login('203.0.113.7, 10.1.2.3')).toEqual({ status: 429, remaining: '0' });
      expect(await failedLoginAddresses(t)).toEqual(new Set(['203.0.113.7', '203.0.113.8']));
    } finally {
      await t.close();
    }
  });
});

describe('rate limits in the OpenAPI description', () => {
  it('documents the three headers on every response of every /api/v1 operation, and its 429', async () => {
    const t = await createTestApp();
    try {
      const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const headerRefs = {
        'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
        'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
        'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
      };
      let operations = 0;
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
        if (!path.startsWith('/api/v1/')) continue;
        for (const [method, op] of Object.entries(item)) {
          operations++;
          const where = `${method.toUpperCase()} ${path}`;
          expect(op.responses['429'], where).toEqual({ $ref: '#/components/responses/RateLimited' });
          // A 503 (the store unreachable, the process stopping) may come before any limit is counted.
          expect(op.responses['503'], where).toEqual({ $ref: '#/components/responses/Unavailable' });
          for (const [status, response] of Object.entries(op.responses)) {
            if (status !== '429' && status !== '503')
              expect(response.headers, `${where} ${status}`).toMatchObject(headerRefs);
          }
        }
      }
      expect(operations).toBeGreaterThanOrEqual(30);
      expect(doc.components.responses.RateLimited).toMatchObject({
        headers: { ...headerRefs, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      });
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) {
        expect(doc.components.headers[name].schema.type, name).toBe('integer');
      }
      // Routes outside /api/v1 are not rate-limited and say nothing of it.
      expect(JSON.stringify(doc.paths['/healthz'] ?? {})).not.toContain('RateLimit');
    } finally {
      await t.close();
    }
  });
});

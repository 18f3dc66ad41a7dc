// The stricter per-endpoint limits of docs/contract.md §4 (5 calls a minute per user for the bridge and
// anonymization runs): checked on an app of their own whose rate limits are counted, since the test
// harness counts none by default.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createMemoryRateLimitStore } from '../../src/http/rate-limit-store.ts';
import { type Client, createTestApp, type Response } from './app.ts';

/**
 * A new user's first five `call`s reach the route (each answers 404: `call` names resources that do
 * not exist) and the sixth is refused with 429, the limit's text and a Retry-After.
 */
export async function expectFivePerMinute(call: (owner: Client) => Promise<Response>): Promise<void> {
  const t = await createTestApp({ rateLimitStore: (now) => createMemoryRateLimitStore({ now }) });
  try {
    const { owner } = await t.createOrg(`Limited ${randomUUID()}`);
    const answers: Response[] = [];
    for (let i = 0; i < 6; i++) answers.push(await call(owner));
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404, 429]);
    const refused = answers[5]!;
    expect(refused.body.detail).toBe('Rate limit exceeded: 5 per 1 minute');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  } finally {
    await t.close();
  }
}

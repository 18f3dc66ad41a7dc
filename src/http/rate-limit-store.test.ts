import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestRedisStore,
  redisAvailable,
  type TestRedisStore,
  testRedisUrl,
} from '../../test/support/rate-limits.ts';
import {
  type Counter,
  createMemoryRateLimitStore,
  createRedisRateLimitStore,
  type RateLimitStore,
} from './rate-limit-store.ts';

const redisUp = await redisAvailable();

const counter = (key: string, limit: number, weight = 1, ttlMs = 60_000): Counter => ({
  key,
  limit,
  weight,
  ttlMs,
});

function storeContract(name: string, open: () => Promise<{ store: RateLimitStore; done(): Promise<void> }>) {
  describe(`rate-limit store: ${name}`, () => {
    let store: RateLimitStore;
    let done: () => Promise<void>;
    let run = 0;
    // Keys of their own for each test, so the tests do not see one another's counts.
    const key = (name: string) => `t${run}:${name}`;

    beforeAll(async () => {
      ({ store, done } = await open());
    });
    afterAll(() => done());

    it('adds each weight and returns the new counts, in order', async () => {
      run++;
      expect(await store.consume([counter(key('a'), 10), counter(key('b'), 100, 3)])).toEqual({
        allowed: true,
        counts: [1, 3],
      });
      expect(await store.consume([counter(key('a'), 10, 2), counter(key('b'), 100, 3)])).toEqual({
        allowed: true,
        counts: [3, 6],
      });
    });

    it('changes nothing when any counter would pass its limit (all or none)', async () => {
      run++;
      expect(await store.consume([counter(key('a'), 10, 4), counter(key('b'), 5, 4)])).toEqual({
        allowed: true,
        counts: [4, 4],
      });
      // b would reach 8 > 5: refused, and a is not counted either.
      expect(await store.consume([counter(key('a'), 10, 4), counter(key('b'), 5, 4)])).toEqual({
        allowed: false,
        counts: [4, 4],
      });
      // Exactly up to the limit is allowed.
      expect(await store.consume([counter(key('a'), 10, 1), counter(key('b'), 5, 1)])).toEqual({
        allowed: true,
        counts: [5, 5],
      });
      expect((await store.consume([counter(key('b'), 5, 1)])).allowed).toBe(false);
    });

    it('lets exactly the limit through when 100 consumes race for 60', async () => {
      run++;
      const results = await Promise.all(
        Array.from({ length: 100 }, () =>
          store.consume([counter(key('race'), 60), counter(key('hour'), 1000)]),
        ),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(60);
      const seen = results.filter((r) => r.allowed).map((r) => r.counts[0]);
      expect(new Set(seen)).toEqual(new Set(Array.from({ length: 60 }, (_, i) => i + 1)));
      // The refused ones did not count against the second counter.
      expect((await store.consume([counter(key('hour'), 1000)])).counts).toEqual([61]);
    });
  });
}

storeContract('memory', async () => {
  const store = createMemoryRateLimitStore({ now: () => new Date() });
  return { store, done: () => store.close() };
});

describe('rate-limit store: memory expiry', () => {
  it('forgets a counter when its time is up, by its own clock', async () => {
    let at = Date.parse('2030-01-01T00:00:00Z');
    const store = createMemoryRateLimitStore({ now: () => new Date(at) });
    expect((await store.consume([counter('k', 2, 2, 1_000)])).allowed).toBe(true);
    expect((await store.consume([counter('k', 2, 1, 1_000)])).allowed).toBe(false);
    at += 999;
    expect((await store.consume([counter('k', 2, 1, 1_000)])).allowed).toBe(false);
    at += 1;
    expect(await store.consume([counter('k', 2, 1, 1_000)])).toEqual({ allowed: true, counts: [1] });
  });
});

describe.skipIf(!redisUp)('rate-limit store: redis', () => {
  let redis: TestRedisStore;
  beforeAll(async () => {
    redis = await createTestRedisStore();
  });
  afterAll(() => redis.cleanup());

  it('keeps counters under its prefix, each with an expiry', async () => {
    await redis.store.consume([counter('ttl-a', 5, 1, 90_000), counter('ttl-b', 5, 1, 3_000)]);
    const keys = (await redis.keys()).sort();
    expect(keys).toEqual([`${redis.prefix}ttl-a`, `${redis.prefix}ttl-b`]);
    const { Redis } = await import('ioredis');
    const client = new Redis(testRedisUrl);
    try {
      const ttlA = await client.pttl(`${redis.prefix}ttl-a`);
      const ttlB = await client.pttl(`${redis.prefix}ttl-b`);
      expect(ttlA).toBeGreaterThan(80_000);
      expect(ttlA).toBeLessThanOrEqual(90_000);
      expect(ttlB).toBeGreaterThan(0);
      expect(ttlB).toBeLessThanOrEqual(3_000);
      // A later consume does not push the expiry out.
      await redis.store.consume([counter('ttl-b', 5, 1, 90_000)]);
      expect(await client.pttl(`${redis.prefix}ttl-b`)).toBeLessThanOrEqual(3_000);
    } finally {
      client.disconnect();
    }
  });
});

if (redisUp) {
  storeContract('redis', async () => {
    const redis = await createTestRedisStore();
    return { store: redis.store, done: () => redis.cleanup() };
  });
}

describe('rate-limit store: redis at start-up', () => {
  it('refuses to start on an unreachable REDIS_URL with a clear error', async () => {
    await expect(createRedisRateLimitStore({ url: 'redis://127.0.0.1:1' })).rejects.toThrow(
      /^Redis at REDIS_URL is unreachable: /,
    );
  });
});

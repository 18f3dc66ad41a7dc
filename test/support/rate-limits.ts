// Rate-limit counters for tests: a store that counts nothing (the harness default, so suites are not
// throttled) and the Redis server of the tests (TEST_REDIS_URL, default redis://127.0.0.1:6379),
// used under a key prefix of its own per test run and emptied afterwards. An unreachable Redis skips
// those tests with one loud line, or fails the run when REQUIRE_DATABASES=1.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  type Counter,
  createRedisRateLimitStore,
  type RateLimitStore,
} from '../../src/http/rate-limit-store.ts';
import type { TestApp } from './app.ts';
import { databasesRequired, redactUrl } from './databases.ts';

export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Every request is allowed and looks like the first of its window. */
export function createUncountedRateLimitStore(): RateLimitStore {
  return {
    async consume(counters: readonly Counter[]) {
      return { allowed: true, counts: counters.map((c) => Math.min(c.weight, c.limit)) };
    },
    async close() {},
  };
}

function connect(url: string): Redis {
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
}

/** Why Redis at `url` cannot be used, or undefined when it answers. */
export async function probeRedis(url: string): Promise<string | undefined> {
  const redis = connect(url);
  // The cause (ECONNREFUSED, …) comes as an event; the rejected connect only says it closed.
  let cause: Error | undefined;
  redis.on('error', (error: Error) => {
    cause ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return (cause ?? (error as Error)).message;
  } finally {
    redis.disconnect();
  }
}

let probe: Promise<string | undefined> | undefined;

/** Whether the tests' Redis answers; with REQUIRE_DATABASES=1 an unreachable one is an error. */
export async function redisAvailable(): Promise<boolean> {
  probe ??= probeRedis(testRedisUrl);
  const failure = await probe;
  if (failure === undefined) return true;
  if (databasesRequired) {
    throw new Error(`REQUIRE_DATABASES=1 but Redis at ${redactUrl(testRedisUrl)} is unreachable: ${failure}`);
  }
  console.warn(
    `\n*** SKIPPED the Redis rate-limit tests: no Redis server at ${redactUrl(testRedisUrl)} ` +
      `(${failure}; start one, or set REQUIRE_DATABASES=1 to make this an error) ***\n`,
  );
  return false;
}

export interface TestRedisStore {
  store: RateLimitStore;
  prefix: string;
  /** The keys under this run's prefix. */
  keys(): Promise<string[]>;
  /** Deletes this run's keys and closes the connections. */
  cleanup(): Promise<void>;
}

/** A Redis store under a prefix no other run uses. */
export async function createTestRedisStore(): Promise<TestRedisStore> {
  const prefix = `dbops-test:${randomBytes(6).toString('hex')}:`;
  const store = await createRedisRateLimitStore({ url: testRedisUrl, prefix });
  const admin = connect(testRedisUrl);
  await admin.connect();
  const keys = async () => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      found.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    return found;
  };
  return {
    store,
    prefix,
    keys,
    async cleanup() {
      const left = await keys();
      if (left.length > 0) await admin.del(...left);
      await store.close();
      admin.disconnect();
    },
  };
}

/** Moves the app clock to 1 s into the next window of `size`; returns that window's end (Unix s). */
export function nextWindow(t: TestApp, size: number): number {
  const at = t.now().getTime();
  const start = Math.floor(at / size) * size + size;
  t.advance(start + 1_000 - at);
  return (start + size) / 1000;
}

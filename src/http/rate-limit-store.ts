// Rate-limit counters: one interface, kept in this process's memory (the default, one API process)
// or in Redis (REDIS_URL, several API processes share the counters). Both consume several counters
// of one request all or nothing and atomically, so parallel requests never overshoot a limit.
import { Redis } from 'ioredis';

export interface Counter {
  /** The counter's name; it includes its window's start, so a new window is a new counter. */
  key: string;
  limit: number;
  /** What this request adds. */
  weight: number;
  /** How long the counter must outlive this moment (its window's end, plus a margin). */
  ttlMs: number;
}

export interface ConsumeResult {
  /** False when any counter would have passed its limit; then none was changed. */
  allowed: boolean;
  /** Each counter's value after the call (unchanged when refused), in the order given. */
  counts: number[];
}

export interface RateLimitStore {
  consume(counters: readonly Counter[]): Promise<ConsumeResult>;
  close(): Promise<void>;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Counters in a Map. `consume` runs start to end without awaiting anything, so it is atomic in one
 * process. Expired counters are swept at most once a minute, on use, so no timer keeps the process up.
 */
export function createMemoryRateLimitStore(deps: { now: () => Date }): RateLimitStore {
  const counters = new Map<string, { count: number; expiresAt: number }>();
  let nextSweep = 0;

  return {
    async consume(wanted) {
      const at = deps.now().getTime();
      if (at >= nextSweep) {
        for (const [key, entry] of counters) if (entry.expiresAt <= at) counters.delete(key);
        nextSweep = at + SWEEP_INTERVAL_MS;
      }
      const entries = wanted.map(({ key }) => {
        const entry = counters.get(key);
        return entry && entry.expiresAt > at ? entry : undefined;
      });
      const counts = entries.map((entry) => entry?.count ?? 0);
      const allowed = wanted.every((counter, i) => (counts[i] ?? 0) + counter.weight <= counter.limit);
      if (!allowed) return { allowed, counts };
      wanted.forEach((counter, i) => {
        const entry = entries[i] ?? { count: 0, expiresAt: at + counter.ttlMs };
        entry.count += counter.weight;
        counters.set(counter.key, entry);
        counts[i] = entry.count;
      });
      return { allowed, counts };
    },
    async close() {
      counters.clear();
    },
  };
}

/**
 * Checks every counter, then increments all of them or none, in one round trip. Redis runs a script
 * atomically, so concurrent requests from any number of processes see consistent counts.
 * KEYS[i] is a counter; ARGV[3i-2], ARGV[3i-1], ARGV[3i] are its limit, weight and TTL in ms.
 * A counter gets its expiry when it is created (or if it somehow has none).
 */
const CONSUME_SCRIPT = `
local counts = {}
local allowed = 1
for i = 1, #KEYS do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  if counts[i] + tonumber(ARGV[3 * i - 1]) > tonumber(ARGV[3 * i - 2]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, #KEYS do
    counts[i] = redis.call('INCRBY', KEYS[i], ARGV[3 * i - 1])
    if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], ARGV[3 * i]) end
  end
end
table.insert(counts, 1, allowed)
return counts
`;

interface WithConsume {
  dbopsRateLimitConsume(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
}

/** REDIS_URL does not answer at start-up. */
export class RedisUnavailableError extends Error {}

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every counter's key, so several deployments (or test runs) can share one Redis. */
  prefix?: string;
  /** Connection trouble after the start; the limiter lets requests through meanwhile. */
  onError?: (error: Error) => void;
}

/**
 * Counters in Redis. Connects before it returns, so a wrong REDIS_URL stops the start with a clear
 * error. Later outages fail fast (no offline queue): the limiter then lets requests pass (see
 * rate-limit.ts) rather than make the whole API unavailable.
 */
export async function createRedisRateLimitStore(options: RedisStoreOptions): Promise<RateLimitStore> {
  const prefix = options.prefix ?? 'dbops:rl:';
  const redis = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    commandTimeout: 2_000,
  });
  let startFailure: Error | undefined;
  const onStartError = (error: Error) => {
    startFailure ??= error;
  };
  redis.on('error', onStartError);
  redis.defineCommand('dbopsRateLimitConsume', { lua: CONSUME_SCRIPT });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    // The cause (ECONNREFUSED, …) comes as an event; the rejected connect may only say it closed.
    throw new RedisUnavailableError(
      `Redis at REDIS_URL is unreachable: ${(startFailure ?? (error as Error)).message}`,
    );
  }
  redis.off('error', onStartError);
  redis.on('error', (error: Error) => options.onError?.(error));
  const scripted = redis as unknown as WithConsume;

  return {
    async consume(counters) {
      if (counters.length === 0) return { allowed: true, counts: [] };
      const keys = counters.map((c) => prefix + c.key);
      const args = counters.flatMap((c) => [c.limit, c.weight, Math.max(1, Math.ceil(c.ttlMs))]);
      const [allowed, ...counts] = await scripted.dbopsRateLimitConsume(keys.length, ...keys, ...args);
      return { allowed: allowed === 1, counts: counts.map(Number) };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

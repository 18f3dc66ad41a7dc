// Usage metering without a store write per request (docs/contract.md §11.3): counts are added up in this
// process's memory and flushed to `billing_usage` every 10 s (and when the process closes) as one
// upsert per counter that moved. A process killed without closing loses at most its last 10 s of
// API request counts; the runs, rows and drift checks of `GET /billing/usage` are read from the
// records the work leaves, so they lose nothing.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { Logger } from '../module.ts';

export const FLUSH_INTERVAL_MS = 10_000;

/** `YYYY-MM` of a time, UTC. */
export const periodOf = (at: Date): string => at.toISOString().slice(0, 7);

export type UsageMeter = ReturnType<typeof createUsageMeter>;

export function createUsageMeter(deps: { db: Db; logger: Logger; now: () => Date }) {
  const { db, logger, now } = deps;
  let pending = new Map<string, number>();
  let flushing: Promise<void> = Promise.resolve();

  async function write(batch: Map<string, number>): Promise<void> {
    const rows = [...batch].map(([key, count]) => {
      const [org_id, period, metric] = key.split('|') as [string, string, string];
      return { org_id, period, metric, count };
    });
    if (rows.length === 0) return;
    await db
      .insertInto('billing_usage')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['org_id', 'period', 'metric'])
          .doUpdateSet({ count: sql`billing_usage.count + excluded.count` }),
      )
      .execute();
  }

  /** Writes what was counted since the last flush; a failed write keeps it for the next one. */
  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      const batch = pending;
      pending = new Map();
      try {
        await write(batch);
      } catch (error) {
        for (const [key, count] of batch) pending.set(key, (pending.get(key) ?? 0) + count);
        logger.warn({ err: error }, 'usage counters not written; kept for the next flush');
      }
    });
    return flushing;
  }

  const timer = setInterval(() => void flush(), FLUSH_INTERVAL_MS);
  timer.unref();

  return {
    count(orgId: string, metric: string, amount = 1): void {
      const key = `${orgId}|${periodOf(now())}|${metric}`;
      pending.set(key, (pending.get(key) ?? 0) + amount);
    },
    flush,
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}

// The gauges that need the store: read when Prometheus scrapes, with a short cache, so that several
// scrapers (or a scrape of each family) cost one round of queries, and a request never pays for them.
// Every known queue (pg-boss's queue table) is exported in every state, at 0 when it has no job.
import { sql } from 'kysely';
import { Gauge, type Registry } from 'prom-client';
import { JOBS_SCHEMA } from '../jobs/boss.ts';
import type { Store } from '../store/db.ts';

/** pg-boss's job states. */
export const QUEUE_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] as const;

/** How long one reading of the store serves scrapes. */
export const SCRAPE_CACHE_MS = 5_000;

interface Reading {
  jobs: { queue: string; state: string; count: number }[];
  queues: string[];
  oldest: Map<string, number>;
  sinks: { sink: string; lagSeconds: number }[];
  driftOpen: number;
}

export interface ScrapeGaugeOptions {
  registry: Registry;
  store: Store;
  /** Told when the store cannot be read; the gauges keep their last values. */
  onError: (error: unknown) => void;
  cacheMs?: number;
}

export function registerScrapeGauges({
  registry,
  store,
  onError,
  cacheMs = SCRAPE_CACHE_MS,
}: ScrapeGaugeOptions): void {
  let cached: { at: number; reading: Promise<Reading | undefined> } | undefined;
  /** One reading per cache period, shared by every gauge's collect of the scrapes in it. */
  const read = (): Promise<Reading | undefined> => {
    if (!cached || Date.now() - cached.at >= cacheMs)
      cached = {
        at: Date.now(),
        reading: readStore(store).catch((error: unknown) => {
          onError(error);
          return undefined;
        }),
      };
    return cached.reading;
  };
  const registers = [registry];

  new Gauge({
    name: 'dbops_queue_jobs',
    help: "Jobs in pg-boss's queues, by queue and state (created, retry, active, completed, cancelled, failed).",
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      const reading = await read();
      if (!reading) return;
      this.reset();
      for (const queue of reading.queues) for (const state of QUEUE_STATES) this.labels(queue, state).set(0);
      for (const { queue, state, count } of reading.jobs) this.labels(queue, state).set(count);
    },
  });
  new Gauge({
    name: 'dbops_queue_oldest_job_age_seconds',
    help: 'How long the oldest job that is due (created or retry, its start time passed) has waited, by queue; 0 when none waits.',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      const reading = await read();
      if (!reading) return;
      this.reset();
      for (const queue of reading.queues) this.labels(queue).set(reading.oldest.get(queue) ?? 0);
    },
  });
  new Gauge({
    name: 'dbops_audit_export_lag_seconds',
    help: 'Age of the oldest audit entry an active audit-export sink has not accepted yet, by sink id; 0 when it is up to date.',
    labelNames: ['sink'] as const,
    registers,
    async collect() {
      const reading = await read();
      if (!reading) return;
      this.reset();
      for (const { sink, lagSeconds } of reading.sinks) this.labels(sink).set(lagSeconds);
    },
  });
  new Gauge({
    name: 'dbops_drift_reports_open',
    help: 'Drift reports not acknowledged yet, across every organization.',
    registers,
    async collect() {
      const reading = await read();
      if (reading) this.set(reading.driftOpen);
    },
  });
  const poolConnections = store.poolConnections;
  if (poolConnections)
    // The pool is in this process: read at every scrape, no query, nothing to cache.
    new Gauge({
      name: 'dbops_store_pool_connections',
      help: "Connections of this process's pool to the store (PostgreSQL), by state: active, idle, waiting (requests waiting for a connection).",
      labelNames: ['state'] as const,
      registers,
      collect() {
        for (const [state, count] of Object.entries(poolConnections())) this.labels(state).set(count);
      },
    });
}

async function readStore(store: Store): Promise<Reading> {
  const { db } = store;
  const job = sql.table(`${JOBS_SCHEMA}.job`);
  const queue = sql.table(`${JOBS_SCHEMA}.queue`);
  const [queues, jobs, oldest, sinks, drift] = await Promise.all([
    sql<{ name: string }>`select name from ${queue}`.execute(db),
    sql<{ queue: string; state: string; count: number }>`
      select name as queue, state::text as state, count(*)::int as count from ${job} group by 1, 2`.execute(
      db,
    ),
    sql<{ queue: string; age: number }>`
      select name as queue, extract(epoch from now() - min(start_after))::float8 as age from ${job}
      where state in ('created', 'retry') and start_after <= now() group by 1`.execute(db),
    sql<{ sink: string; lag: number }>`
      select s.id as sink, coalesce(extract(epoch from now() - (
        select a.created_at from audit_log a
        where a.org_id = s.org_id and a.seq > s.last_exported_seq order by a.seq limit 1
      )), 0)::float8 as lag
      from audit_sinks s where s.active`.execute(db),
    sql<{ count: number }>`select count(*)::int as count from drift_reports where status = 'pending'`.execute(
      db,
    ),
  ]);
  return {
    queues: [...new Set([...queues.rows.map((r) => r.name), ...jobs.rows.map((r) => r.queue)])],
    jobs: jobs.rows.map((r) => ({ ...r, count: Number(r.count) })),
    oldest: new Map(oldest.rows.map((r) => [r.queue, Math.max(0, Number(r.age))])),
    sinks: sinks.rows.map((r) => ({ sink: r.sink, lagSeconds: Math.max(0, Number(r.lag)) })),
    driftOpen: Number(drift.rows[0]?.count ?? 0),
  };
}

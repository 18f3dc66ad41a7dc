// What an operator watches: the service's Prometheus metrics (prom-client), served on METRICS_PORT
// by ./metrics-server.ts, and its traces (./tracing.ts, loaded with `node --import`). The names and
// labels below are an interface: dashboards and alerts (deploy/) query them, docs/operations.md
// describes each. Counters live once per process, like the process they count; gauges that need a
// query are read at scrape time (./scrape-gauges.ts), never on a request's path.
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { RUN_KINDS, RUN_STATUSES } from '../core/vocabulary.ts';

/** Seconds: from a cached read (a few ms) to a slow bulk request (the 30 s a proxy usually allows). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: a run takes from under a second (a small patch) to hours (a copy of a large database). */
const RUN_BUCKETS = [0.5, 1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400];

/** The route label of a request no route matched: an id in a path never becomes a label value. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Where a run ends, as counted: the run statuses that are an end. */
export const RUN_END_STATUSES = RUN_STATUSES.filter(
  (status) => status === 'succeeded' || status === 'failed' || status === 'cancelled',
);

/** What an attempt to deliver a webhook came to. */
export const WEBHOOK_OUTCOMES = ['succeeded', 'retrying', 'failed'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

export function createServiceMetrics(registry: Registry) {
  const registers = [registry];
  const runs = new Counter({
    name: 'dbops_runs_total',
    help: 'Runs that ended, by kind and status (succeeded, failed, cancelled).',
    labelNames: ['kind', 'status'] as const,
    registers,
  });
  const runRows = new Counter({
    name: 'dbops_run_rows_total',
    help: "Rows changed or written by runs that ended, by kind (a patch's affected rows, a seed's or a copy's rows written).",
    labelNames: ['kind'] as const,
    registers,
  });
  const webhookDeliveries = new Counter({
    name: 'dbops_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: succeeded (2xx), retrying (a retry is scheduled), failed (no retry left, or 410).',
    labelNames: ['outcome'] as const,
    registers,
  });
  // Every run kind and end, and every outcome, is exported from the start at 0: a rate() over a
  // series that appears with its first increment misses that increment.
  for (const kind of RUN_KINDS) {
    runRows.labels(kind).inc(0);
    for (const status of RUN_END_STATUSES) runs.labels(kind, status).inc(0);
  }
  for (const outcome of WEBHOOK_OUTCOMES) webhookDeliveries.labels(outcome).inc(0);
  return {
    httpRequests: new Counter({
      name: 'dbops_http_requests_total',
      help: "HTTP requests answered, by method, route pattern ('unmatched' when no route matched) and status.",
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'dbops_http_request_duration_seconds',
      help: 'Time from receiving a request to its answer being sent, by method and route pattern.',
      labelNames: ['method', 'route'] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    runs,
    runDuration: new Histogram({
      name: 'dbops_run_duration_seconds',
      help: 'Time a run worked (from its start by a worker to its end), by kind.',
      labelNames: ['kind'] as const,
      buckets: RUN_BUCKETS,
      registers,
    }),
    runRows,
    webhookDeliveries,
    rateLimited: new Counter({
      name: 'dbops_rate_limited_total',
      help: 'Requests refused with 429, by the limit they hit: plan_minute, plan_hour (the plan allowance), endpoint (a stricter limit of the route), scim_minute, scim_hour.',
      labelNames: ['limit'] as const,
      registers,
    }),
  };
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;

/** The process's registry: what /metrics on METRICS_PORT answers. */
export const registry = new Registry();

/** The process's instruments: one set per process, whatever number of compositions it builds. */
export const metrics: ServiceMetrics = createServiceMetrics(registry);

let defaultsCollected = false;

/**
 * The default process and Node.js metrics (CPU, memory, event-loop lag, GC, handles), started only
 * in a process that serves metrics: their event-loop monitor is not free.
 */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: registry });
}

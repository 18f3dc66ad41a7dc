// pg-boss on the service store, so the queue needs no infrastructure of its own and a job sent in a
// request is as durable as the request's data. Its tables live in their own schema (`pgboss`), which
// pg-boss creates and migrates itself on start; the store's migrations never touch it.
import { type ConstructorOptions, type DatabaseOptions, fromPglite, PgBoss, type Queue } from 'pg-boss';
import type { JobSender } from '../modules/module.ts';
import type { Store } from '../store/db.ts';

/** The part of a pino logger the queue uses; Fastify's logger fits. */
export interface JobsLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * pg-boss settings a caller may tune (maintenance and cron intervals, `schedule`, `supervise`). The
 * connection is not among them: it always comes from the store.
 */
export type JobsTuning = Omit<ConstructorOptions, keyof DatabaseOptions | 'backend'>;

export interface Jobs {
  boss: PgBoss;
  /** Installs or migrates pg-boss's schema if needed, then starts polling, cron and maintenance. */
  start(): Promise<void>;
  /** Lets active handlers finish (bounded), then stops. Call it before closing the store. */
  stop(): Promise<void>;
}

export const JOBS_SCHEMA = 'pgboss';

// Long enough for a cleanup to finish its batch or a webhook attempt its 10 s; a handler still
// running after it is failed and its job retried by whichever process works the queue next. Runs
// are not among them: they were drained before the queue stops (src/jobs/index.ts, `drain`).
const STOP_TIMEOUT_MS = 10_000;

export function createJobs({
  store,
  logger,
  schema = JOBS_SCHEMA,
  tuning = {},
}: {
  store: Store;
  logger: JobsLogger;
  schema?: string;
  tuning?: JobsTuning;
}): Jobs {
  // LISTEN/NOTIFY wakes a worker the moment a job lands on a queue that opts in (the runs' queue),
  // whichever process sent it: a run starts within milliseconds instead of at the next poll, up to
  // two seconds later. Polling stays as the floor when the listener's connection is down.
  const boss = new PgBoss({ useListenNotify: true, ...tuning, schema, ...connectionOf(store) });
  // Without an 'error' listener an EventEmitter throws the error out of emit(), which would take the
  // process down for a failed poll. Errors here are pg-boss's own (polls, maintenance, cron); a
  // handler's failure is recorded on its job and retried.
  boss.on('error', (error) => logger.error({ err: error }, 'job queue error'));
  boss.on('warning', (warning) => logger.warn({ warning: warning.data }, `job queue: ${warning.message}`));
  return {
    boss,
    async start() {
      await boss.start();
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: STOP_TIMEOUT_MS });
    },
  };
}

/** Sends jobs to pg-boss's queues. */
export function jobSender(jobs: Jobs): JobSender {
  return {
    async send(queue, data, options = {}) {
      await jobs.boss.send(queue, data, options);
    },
  };
}

/**
 * Creates the queue, or brings an existing one to `options`. pg-boss's `createQueue` leaves an
 * existing queue as it is, so without the update a retry or expiry setting changed in the code would
 * silently never reach a store where the queue already exists. The policy cannot change after
 * creation (pg-boss refuses); a new policy needs a new queue name.
 */
export async function ensureQueue(
  jobs: Jobs,
  name: string,
  options: Omit<Queue, 'name' | 'partition'>,
): Promise<void> {
  await jobs.boss.createQueue(name, options);
  const { policy: _policy, ...changeable } = options;
  await jobs.boss.updateQueue(name, changeable);
}

function connectionOf(
  store: Store,
): Pick<ConstructorOptions, 'db' | 'backend' | 'connectionString' | 'application_name'> {
  if (store.pglite) {
    // The adapter sends everything through `pglite.query()` and `pglite.exec()`, which wait for an
    // open `PGlite.transaction()` (how the store's Kysely dialect runs transactions) instead of
    // running inside it. So a poll or a send never commits or rolls back with a request's work.
    // The store owns the PGlite instance: stopping pg-boss leaves it open.
    return { db: fromPglite(store.pglite), backend: 'pglite' };
  }
  if (store.url) {
    // pg-boss keeps its own pool on the same server, so its polls never queue behind requests for a
    // connection; the application name tells the two apart in pg_stat_activity.
    return { connectionString: store.url, application_name: 'dbops-jobs' };
  }
  throw new Error('The store has neither a PGlite instance nor a PostgreSQL URL');
}

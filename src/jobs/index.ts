// Background work on the job queue (pg-boss on the service store): queue names, the queue's wiring
// and one file per job. Handlers do their work through module services and repos, never through
// HTTP; `serve` (when it works jobs, the single-process default) and `worker` register them here.
import type { Config } from '../config.ts';
import type { Db } from '../store/db.ts';
import type { Jobs, JobsLogger } from './boss.ts';
import { registerSessionCleanup } from './session-cleanup.ts';

export { createJobs, type Jobs, type JobsLogger, type JobsTuning } from './boss.ts';
export { jobNames } from './names.ts';

/**
 * Creates every queue, (re)stores every schedule and starts a worker per queue. Call it after
 * `jobs.start()`. Idempotent across processes and restarts: each of them registers the same.
 */
export async function registerJobHandlers(
  jobs: Jobs,
  {
    db,
    logger,
    config,
    now,
    pollingIntervalSeconds,
  }: {
    db: Db;
    logger: JobsLogger;
    config: Pick<Config, 'sessionCleanupCron'>;
    now?: () => Date;
    /** Overrides every worker's idle polling interval. */
    pollingIntervalSeconds?: number;
  },
): Promise<void> {
  await registerSessionCleanup(jobs, {
    db,
    logger,
    now,
    cron: config.sessionCleanupCron,
    pollingIntervalSeconds,
  });
}

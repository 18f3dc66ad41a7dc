// Background work on the job queue (pg-boss on the service store): queue names, the queue's wiring
// and one file per job. Handlers do their work through module services and repos, never through
// HTTP; `serve` (when it works jobs, the single-process default) and `worker` register them here.
import { hostname } from 'node:os';
import type { Config } from '../config.ts';
import { createRunExecutor, type RunHandlers } from '../modules/runs/runs.executor.ts';
import type { Db } from '../store/db.ts';
import { registerApprovalExpiry } from './approval-expiry.ts';
import { registerBackupRetention } from './backup-retention.ts';
import type { Jobs, JobsLogger } from './boss.ts';
import { type DriftJobsConfig, type DriftJobsDeps, registerDriftJobs } from './drift.ts';
import { registerRunWorker } from './run-queue.ts';
import { registerSessionCleanup } from './session-cleanup.ts';
import { registerSnapshotRetention } from './snapshot-retention.ts';
import { createTargetRunHandlers } from './target-runs.ts';

export { createJobs, type Jobs, type JobsLogger, type JobsTuning } from './boss.ts';
export { createDriftAlertQueue } from './drift-alert.ts';
export { jobNames } from './names.ts';
export { createRunQueue } from './run-queue.ts';

/** A running run is failed as interrupted when its process has not beaten for this long. */
const RUN_STALE_AFTER_MS = 60_000;

/**
 * Creates every queue, (re)stores every schedule and starts a worker per queue. Call it after
 * `jobs.start()`. Idempotent across processes and restarts: each of them registers the same.
 * Returns what closes the handlers' own resources (the target pools of drift, migrations and backup
 * retention): call it after `jobs.stop()`.
 */
export async function registerJobHandlers(
  jobs: Jobs,
  {
    db,
    logger,
    config,
    now = () => new Date(),
    pollingIntervalSeconds,
    runHandlers = {},
    ...drift
  }: {
    db: Db;
    logger: JobsLogger;
    config: Pick<Config, 'sessionCleanupCron' | 'backupRetention' | 'snapshotRetention'> & DriftJobsConfig;
    now?: () => Date;
    /** The handler of each run kind (patches, migrations, …). */
    runHandlers?: RunHandlers;
    /** Overrides every worker's idle polling interval. */
    pollingIntervalSeconds?: number;
  } & Pick<DriftJobsDeps, 'secretKey' | 'dialects' | 'resolveHost'>,
): Promise<() => Promise<void>> {
  await registerSessionCleanup(jobs, {
    db,
    logger,
    now,
    cron: config.sessionCleanupCron,
    pollingIntervalSeconds,
  });
  const targetRuns = createTargetRunHandlers({
    db,
    now,
    secretKey: drift.secretKey,
    targets: config.targets,
    dialects: drift.dialects,
    resolveHost: drift.resolveHost,
    logger,
  });
  const executor = createRunExecutor({
    db,
    handlers: { ...targetRuns.handlers, ...runHandlers },
    logger,
    now,
    workerId: `${hostname()}:${process.pid}`,
    staleAfterMs: RUN_STALE_AFTER_MS,
  });
  await registerRunWorker(jobs, executor, logger, { pollingIntervalSeconds });
  await registerApprovalExpiry(jobs, { db, logger, now, pollingIntervalSeconds });
  const closeDrift = await registerDriftJobs(jobs, {
    ...drift,
    db,
    logger,
    now,
    config,
    pollingIntervalSeconds,
  });
  await registerSnapshotRetention(jobs, {
    db,
    logger,
    now,
    cron: config.snapshotRetention.cron,
    retentionDays: config.snapshotRetention.days,
    pollingIntervalSeconds,
  });
  const closeBackupRetention = await registerBackupRetention(jobs, {
    db,
    logger,
    now,
    cron: config.backupRetention.cron,
    retentionDays: config.backupRetention.days,
    secretKey: drift.secretKey,
    targets: config.targets,
    dialects: drift.dialects,
    resolveHost: drift.resolveHost,
    pollingIntervalSeconds,
  });
  return async () => {
    await closeDrift();
    await targetRuns.close();
    await closeBackupRetention();
  };
}

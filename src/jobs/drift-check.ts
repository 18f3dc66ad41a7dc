// `drift_check`: the scheduled drift check of every connection of every Enterprise organization
// (config `drift.checkCron`, DRIFT_CHECK_CRON, daily at 03:00 UTC by default). The pass itself is
// in src/modules/drift/drift-pass.ts; a connection that fails does not fail the job.
import type { DriftPassResult } from '../modules/drift/drift-pass.ts';
import { ensureQueue, type Jobs, type JobsLogger } from './boss.ts';
import { jobNames } from './names.ts';

export async function registerDriftCheck(
  jobs: Jobs,
  {
    cron,
    pass,
    logger,
    pollingIntervalSeconds = 10,
  }: {
    /** A cron expression in UTC. */
    cron: string;
    pass: () => Promise<DriftPassResult>;
    logger: JobsLogger;
    pollingIntervalSeconds?: number;
  },
): Promise<void> {
  const name = jobNames.driftCheck;
  // `stately`: at most one pass waiting and one running, whatever the number of workers, so a slow
  // pass never has another start beside it. Only a pass that fails as a whole (the store) retries.
  await ensureQueue(jobs, name, {
    policy: 'stately',
    retryLimit: 2,
    retryDelay: 300,
    retryBackoff: true,
    expireInSeconds: 6 * 60 * 60,
  });
  await jobs.boss.schedule(name, cron, null, { tz: 'UTC' });
  await jobs.boss.work(name, { pollingIntervalSeconds }, async () => {
    try {
      return await pass();
    } catch (error) {
      logger.error({ err: error, job: name }, 'drift check pass failed');
      throw error;
    }
  });
}

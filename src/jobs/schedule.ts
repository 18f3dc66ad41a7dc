// The one way a module's schedule or queue reaches pg-boss. A schedule is stored in pg-boss's schema
// keyed by queue name, so every process registers the same and one job is sent per tick whichever
// process's clock fires it; its queue is `stately` (at most one pass waiting and one running), so
// passes never pile up behind a slow one or across workers. A failure is recorded on the job and
// retried with back-off; the log is where an operator sees it.
import type { JobRetry, Logger, QueueWorker, Schedule } from '../modules/module.ts';
import { ensureQueue, type Jobs } from './boss.ts';

/** How often an idle worker looks for a scheduled pass: a pass is never urgent. */
const SCHEDULE_POLLING_SECONDS = 10;

const retryOptions = (retry: JobRetry) => ({
  retryLimit: retry.limit,
  retryDelay: retry.delaySeconds,
  retryBackoff: true,
});

export async function registerSchedule(
  jobs: Jobs,
  schedule: Schedule,
  logger: Logger,
  pollingIntervalSeconds = SCHEDULE_POLLING_SECONDS,
): Promise<void> {
  const { name } = schedule;
  await ensureQueue(jobs, name, {
    policy: 'stately',
    ...retryOptions(schedule.retry),
    expireInSeconds: schedule.expireInSeconds,
  });
  await jobs.boss.schedule(name, schedule.cron, null, { tz: 'UTC' });
  await jobs.boss.work(name, { pollingIntervalSeconds }, async () => {
    try {
      return await schedule.run();
    } catch (error) {
      logger.error({ err: error, job: name }, `${name} failed`);
      throw error;
    }
  });
}

export async function registerQueueWorker(
  jobs: Jobs,
  queue: QueueWorker,
  logger: Logger,
  pollingIntervalSeconds = queue.pollingIntervalSeconds ?? SCHEDULE_POLLING_SECONDS,
): Promise<void> {
  const { name } = queue;
  await ensureQueue(jobs, name, {
    policy: 'standard',
    ...retryOptions(queue.retry),
    expireInSeconds: queue.expireInSeconds,
  });
  const batchSize = queue.batchSize ?? 1;
  const workOne = async (data: Record<string, unknown>) => {
    try {
      return await queue.work(data);
    } catch (error) {
      logger.error({ err: error, job: name, data }, `${name} failed`);
      throw error;
    }
  };
  if (batchSize === 1) {
    await jobs.boss.work<Record<string, unknown>>(name, { pollingIntervalSeconds }, async ([job]) =>
      job ? workOne(job.data) : undefined,
    );
    return;
  }
  // A batch's jobs run side by side and each ends on its own: one that throws is retried alone.
  await jobs.boss.work<Record<string, unknown>>(
    name,
    { pollingIntervalSeconds, batchSize, burstWhenBatchFull: true, perJobResults: true },
    (batch) =>
      Promise.all(
        batch.map(async (job) => {
          try {
            return { id: job.id, status: 'completed' as const, output: await workOne(job.data) };
          } catch (error) {
            return { id: job.id, status: 'failed' as const, output: { message: String(error) } };
          }
        }),
      ),
  );
}

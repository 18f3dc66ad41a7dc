// Runs on the job queue: `run_execute` carries only a run id; the run record in the store is the
// truth (status, progress, result). The queue never retries a run: a failure is the run's outcome.
// A timer beats for this process's runs and sweeps the runs of dead processes.

import type { JobSender } from '../modules/module.ts';
import type { RunExecutor } from '../modules/runs/runs.executor.ts';
import type { RunQueue } from '../modules/runs/runs.service.ts';
import { ensureQueue, type Jobs, type JobsLogger, jobSender } from './boss.ts';

/** The queue of runs: a job per run id. Stored in pg-boss: a rename is a data migration. */
export const RUN_QUEUE = 'run_execute';

export function createRunQueue(jobs: JobSender): RunQueue {
  return {
    enqueue: (runId) => jobs.send(RUN_QUEUE, { run_id: runId }, { singletonKey: runId }),
  };
}

export interface RunWorkerOptions {
  /** Runs worked at once by this process. */
  concurrency?: number;
  pollingIntervalSeconds?: number;
  /** How often this process beats for its runs and sweeps dead ones. */
  heartbeatMs?: number;
}

/** Works runs in this process; returns a function that stops the heartbeat. */
export async function registerRunWorker(
  jobs: Jobs,
  executor: RunExecutor,
  logger: JobsLogger,
  { concurrency = 4, pollingIntervalSeconds = 2, heartbeatMs = 10_000 }: RunWorkerOptions = {},
): Promise<() => void> {
  const name = RUN_QUEUE;
  const queue = createRunQueue(jobSender(jobs));
  await ensureQueue(jobs, name, { policy: 'standard', retryLimit: 0, expireInSeconds: 24 * 3600 });
  await jobs.boss.work<{ run_id: string }>(
    name,
    { pollingIntervalSeconds, batchSize: 1, localConcurrency: concurrency },
    async ([job]) => {
      if (job) await executor.execute(job.data.run_id);
    },
  );
  const tick = async () => {
    try {
      await executor.beat();
      for (const runId of await executor.sweep()) await queue.enqueue(runId);
    } catch (error) {
      logger.error({ err: error }, 'run heartbeat or sweep failed');
    }
  };
  await tick();
  const timer = setInterval(tick, heartbeatMs);
  timer.unref();
  return () => clearInterval(timer);
}

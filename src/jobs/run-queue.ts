// Runs on the job queue: `run_execute` carries only a run id; the run record in the store is the
// truth (status, progress, result). The queue never retries a run: a failure is the run's outcome.
// A timer beats for this process's runs and sweeps the runs of dead processes. The job also carries
// the trace context of whoever queued it (W3C traceparent, empty without tracing), so that the run's
// span is in the trace of the request that asked for it.
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';

import type { JobSender } from '../modules/module.ts';
import type { RunExecutor } from '../modules/runs/runs.executor.ts';
import type { RunQueue } from '../modules/runs/runs.service.ts';
import { ensureQueue, type Jobs, type JobsLogger, jobSender } from './boss.ts';

/** The queue of runs: a job per run id. Stored in pg-boss: a rename is a data migration. */
export const RUN_QUEUE = 'run_execute';

export function createRunQueue(jobs: JobSender): RunQueue {
  return {
    enqueue: (runId) => {
      const trace: Record<string, string> = {};
      propagation.inject(context.active(), trace);
      return jobs.send(
        RUN_QUEUE,
        { run_id: runId, ...(Object.keys(trace).length > 0 && { trace }) },
        { singletonKey: runId },
      );
    },
  };
}

/** Runs one process works at once, by default. */
export const RUNS_AT_ONCE = 4;

export interface RunWorkerOptions {
  /** Runs worked at once by this process. */
  concurrency?: number;
  pollingIntervalSeconds?: number;
  /** How often this process beats for its runs and sweeps dead ones. */
  heartbeatMs?: number;
}

/** Works runs in this process; returns what stops taking runs, and what stops the heartbeat. */
export async function registerRunWorker(
  jobs: Jobs,
  executor: RunExecutor,
  logger: JobsLogger,
  { concurrency = RUNS_AT_ONCE, pollingIntervalSeconds = 2, heartbeatMs = 10_000 }: RunWorkerOptions = {},
): Promise<{ stopTaking(): Promise<void>; stopHeartbeat(): void }> {
  const name = RUN_QUEUE;
  const queue = createRunQueue(jobSender(jobs));
  await ensureQueue(jobs, name, {
    policy: 'standard',
    retryLimit: 0,
    expireInSeconds: 24 * 3600,
    notify: true,
  });
  await jobs.boss.work<{ run_id: string; trace?: Record<string, string> }>(
    name,
    // The poll is the floor under the notifications: as often with them as without.
    {
      pollingIntervalSeconds,
      notifyPollingIntervalSeconds: pollingIntervalSeconds,
      batchSize: 1,
      localConcurrency: concurrency,
    },
    async ([job]) => {
      if (!job) return;
      const queuedIn = job.data.trace ? propagation.extract(ROOT_CONTEXT, job.data.trace) : ROOT_CONTEXT;
      await context.with(queuedIn, () => executor.execute(job.data.run_id));
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
  return {
    // The jobs already fetched still run; no new one is fetched (pg-boss keeps them queued).
    stopTaking: () => jobs.boss.offWork(name, { wait: false }),
    stopHeartbeat: () => clearInterval(timer),
  };
}

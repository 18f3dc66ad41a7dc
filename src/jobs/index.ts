// Background work on the job queue (pg-boss on the service store): the queue's plumbing only. What
// runs is declared by the modules (their run kinds, schedules and queues, src/modules/module.ts);
// this registers each with pg-boss, in every process that works jobs (`serve` in the single-process
// default, `worker`). Idempotent across processes and restarts: each registers the same.
import type { EventsService } from '../modules/events/events.service.ts';
import type { Logger, Module } from '../modules/module.ts';
import type { RunHandlers } from '../modules/runs/run-handler.ts';
import type { RunKinds } from '../modules/runs/run-kinds.ts';
import { createRunExecutor, type DrainReport } from '../modules/runs/runs.executor.ts';
import type { Db, Store } from '../store/db.ts';
import type { Jobs } from './boss.ts';
import { registerRunWorker } from './run-queue.ts';
import { registerQueueWorker, registerSchedule } from './schedule.ts';
import { createWorkerLiveness, newWorkerId } from './worker-liveness.ts';

export { createJobs, type Jobs, type JobsLogger, type JobsTuning, jobSender } from './boss.ts';
export { createRunQueue, RUN_QUEUE, RUNS_AT_ONCE } from './run-queue.ts';

/** A running run is failed as interrupted when its process has not beaten for this long. */
const RUN_STALE_AFTER_MS = 60_000;

export interface WorkOptions {
  db: Db;
  /** The store: its kind decides how a dead worker is told apart (./worker-liveness.ts). */
  store: Store;
  logger: Logger;
  now: () => Date;
  modules: readonly Module[];
  runKinds: RunKinds;
  /** Works only these handlers instead of the modules' (a process that works some kinds). */
  runHandlers?: RunHandlers;
  /** Registers the modules' schedules too (every process that works jobs does; some tests do not). */
  schedules: boolean;
  /**
   * A cron expression that replaces every schedule's own (SCHEDULE_CRON_OVERRIDE). Every process
   * registers the schedules, and the last to register sets the cron all of them fire on, so a
   * deployment sets it on all its processes or on none.
   */
  scheduleCronOverride?: string;
  /** Overrides every worker's idle polling interval. */
  pollingIntervalSeconds?: number;
  /** The event outbox, for the events of a run's end. */
  events?: EventsService;
}

/** What a process that works jobs is given to stop. */
export interface Working {
  /**
   * Takes no new run, lets those in flight finish for `graceMs`, then hands the rest back at their
   * next checkpoint (waiting `handBackMs` for them). The heartbeat goes on meanwhile: these runs live.
   */
  drain(graceMs: number, handBackMs: number): Promise<DrainReport>;
  /** Stops the heartbeat and frees the worker lock (after the queue has stopped). */
  stop(): Promise<void>;
}

/** Starts working runs, queues and schedules. */
export async function workJobs(jobs: Jobs, options: WorkOptions): Promise<Working> {
  const { db, logger, now, modules, pollingIntervalSeconds } = options;
  const workerId = newWorkerId();
  const liveness = await createWorkerLiveness(options.store, workerId, (error) =>
    logger.error({ err: error }, 'the worker lock session failed; it is taken again at the next sweep'),
  );
  const handlers: RunHandlers =
    options.runHandlers ??
    Object.fromEntries(modules.flatMap((m) => m.runKinds ?? []).map((r) => [r.kind, r.handler]));
  const executor = createRunExecutor({
    db,
    kinds: options.runKinds,
    handlers,
    logger,
    now,
    workerId,
    liveness,
    staleAfterMs: RUN_STALE_AFTER_MS,
    events: options.events,
  });
  const runWorker = await registerRunWorker(jobs, executor, logger, { pollingIntervalSeconds });
  // Queues first, so that a schedule's first pass finds the queues it sends to.
  for (const queue of modules.flatMap((m) => m.queues ?? []))
    await registerQueueWorker(jobs, queue, logger, pollingIntervalSeconds);
  if (options.schedules) {
    const cron = options.scheduleCronOverride;
    // Said at every start: a leftover override turns daily passes (drift checks of every
    // connection) into passes every minute.
    if (cron !== undefined)
      logger.warn(
        { cron },
        'SCHEDULE_CRON_OVERRIDE: every scheduled job runs on this cron instead of its own',
      );
    for (const schedule of modules.flatMap((m) => m.schedules ?? []))
      await registerSchedule(
        jobs,
        cron === undefined ? schedule : { ...schedule, cron },
        logger,
        pollingIntervalSeconds,
      );
  }
  return {
    async drain(graceMs, handBackMs) {
      await runWorker.stopTaking();
      return executor.drain(graceMs, handBackMs);
    },
    async stop() {
      runWorker.stopHeartbeat();
      await liveness.close();
    },
  };
}

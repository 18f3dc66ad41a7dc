// Executes runs: claims a queued run, calls the handler of its kind, records progress and the
// outcome. A run is never retried blindly (most operations are not idempotent): a claim succeeds
// only on a `queued` run, and a run whose process died is failed as "interrupted" by the sweep,
// never restarted. A run whose requester may no longer do it is cancelled before it starts.
// Handlers notice a cancellation at their progress checkpoints.

import { AppError } from '../../core/errors.ts';
import { TargetError } from '../../dialects/errors.ts';
import type { Db } from '../../store/db.ts';
import type { Run, RunKind } from '../../store/tables.ts';
import type { EventsService } from '../events/events.service.ts';
import { emitRunEnd, finishRunWithEvents, type RunOutcome } from './run-events.ts';
import type { RunKinds } from './run-kinds.ts';
import { requesterRefusal } from './run-requester.ts';
import {
  claimRun,
  failInterruptedRuns,
  findRunById,
  heartbeat,
  isCancelRequested,
  recordPartialResult,
  runningWorkerIds,
  setProgress,
  staleQueuedRuns,
} from './runs.repo.ts';

export interface RunContext {
  /** Records progress, and is where a requested cancellation stops the handler (it throws RunCancelled). */
  progress(done: number, total?: number | null): Promise<void>;
  /**
   * Records what the run has done so far as its result: a run whose process dies keeps it, for its
   * kind's `interrupted` hook to tell what the dead run left (its end replaces it).
   */
  report(result: Record<string, unknown>): Promise<void>;
}

/** Does the work of one run and returns its result (the run's `result`). */
export type RunHandler = (run: Run, context: RunContext) => Promise<Record<string, unknown>>;

export type RunHandlers = Partial<Record<RunKind, RunHandler>>;

export class RunCancelled extends Error {
  /** What the run had done when it stopped, when its handler says (rethrown with it). */
  readonly result: Record<string, unknown> | undefined;
  constructor(result?: Record<string, unknown>) {
    super('cancelled');
    this.result = result;
  }
}

/** Thrown by a handler whose run failed with results to report (what was applied, what was not). */
export class RunFailed extends Error {
  readonly result: Record<string, unknown>;
  constructor(message: string, result: Record<string, unknown>) {
    super(message);
    this.result = result;
  }
}

export interface RunExecutorLogger {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export type RunExecutor = ReturnType<typeof createRunExecutor>;

export function createRunExecutor(deps: {
  db: Db;
  /** The registered kinds: what their requester needs when the run starts. */
  kinds: RunKinds;
  /** What works each kind (the registered handlers, unless a process works only some). */
  handlers: RunHandlers;
  logger: RunExecutorLogger;
  now: () => Date;
  /** This process, as recorded on the runs it works. */
  workerId: string;
  /** A running run whose worker has not beaten for this long is failed as interrupted. */
  staleAfterMs: number;
  /** Tells the workers that are provably gone, whose runs are failed at once (src/jobs/worker-liveness.ts). */
  liveness?: { alive(workerIds: readonly string[]): Promise<Set<string>> };
  /** The event outbox: a run's end emits its events in the transaction that records it. */
  events?: EventsService;
}) {
  const { db, handlers, logger, now, workerId } = deps;
  const finishRun = (_db: Db, id: string, outcome: RunOutcome, at: Date) =>
    finishRunWithEvents(db, { events: deps.events, kinds: deps.kinds }, id, outcome, at);

  /** What a failed run says: the classified, password-free text of known errors; nothing internal. */
  function describe(run: Run, error: unknown): string {
    if (error instanceof AppError) return typeof error.detail === 'string' ? error.detail : error.message;
    if (error instanceof TargetError) return error.message;
    logger.error({ err: error, run_id: run.id, kind: run.kind }, 'run failed with an unexpected error');
    return `Internal error (logged with run id ${run.id})`;
  }

  return {
    /** Runs one queued run to its end; a run that is not queued any more is left alone. */
    async execute(runId: string): Promise<void> {
      const run = await claimRun(db, runId, workerId, now());
      if (!run) return;
      const handler = handlers[run.kind];
      if (!handler) {
        await finishRun(db, run.id, { status: 'failed', error: `No worker can run ${run.kind} yet` }, now());
        return;
      }
      // Rights are checked when a run is asked for, and again when it starts: whoever asked may have
      // lost them while it waited in the queue (run-requester.ts).
      const refusal = await requesterRefusal(db, run, deps.kinds);
      if (refusal !== null) {
        await finishRun(db, run.id, { status: 'cancelled', error: refusal }, now());
        return;
      }
      const context: RunContext = {
        async progress(done, total) {
          await setProgress(db, run.id, done, total);
          if (await isCancelRequested(db, run.id)) throw new RunCancelled();
        },
        report: (result) => recordPartialResult(db, run.id, result),
      };
      try {
        const result = await handler(run, context);
        await finishRun(db, run.id, { status: 'succeeded', result }, now());
      } catch (error) {
        if (error instanceof RunCancelled)
          await finishRun(
            db,
            run.id,
            { status: 'cancelled', ...(error.result && { result: error.result }) },
            now(),
          );
        else if (error instanceof RunFailed)
          await finishRun(
            db,
            run.id,
            { status: 'failed', error: error.message, result: error.result },
            now(),
          );
        else await finishRun(db, run.id, { status: 'failed', error: describe(run, error) }, now());
      }
    },

    /** Tells the store this process still works its runs. */
    beat: () => heartbeat(db, workerId, now()),

    /**
     * Fails the runs of dead workers, and returns the queued runs whose job may have been lost
     * between their commit and the send, for the queue to send again.
     */
    async sweep(): Promise<string[]> {
      const staleBefore = new Date(now().getTime() - deps.staleAfterMs);
      const working = await runningWorkerIds(db);
      const alive = deps.liveness ? await deps.liveness.alive(working) : new Set(working);
      const gone = working.filter((id) => !alive.has(id));
      // Failed and announced (run.failed) in one transaction, like any other end of a run.
      const interrupted = await db.transaction().execute(async (trx) => {
        const ids = await failInterruptedRuns(trx, staleBefore, now(), gone);
        const { events } = deps;
        if (events)
          for (const id of ids) {
            const run = await findRunById(trx, id);
            if (run) await emitRunEnd(trx, { events, kinds: deps.kinds }, run);
          }
        return ids;
      });
      if (interrupted.length > 0)
        logger.info({ runs: interrupted }, 'runs of a stopped process failed as interrupted');
      for (const id of interrupted) {
        const run = await findRunById(db, id);
        const recover = run && deps.kinds.get(run.kind)?.interrupted;
        if (run && recover)
          await recover(run).catch((error: unknown) =>
            logger.error(
              { err: error, run_id: id },
              'the subject of an interrupted run could not be recovered',
            ),
          );
      }
      return staleQueuedRuns(db, new Date(now().getTime() - deps.staleAfterMs));
    },
  };
}

// Executes runs: claims a queued run, calls the handler of its kind, records progress and the
// outcome. A run is never retried blindly (most operations are not idempotent): a claim succeeds
// only on a `queued` run, and a run whose process died is failed as "interrupted" by the sweep,
// never restarted. A run whose requester may no longer do it is cancelled before it starts.
// Handlers notice a cancellation at their progress checkpoints, and a stopping process hands its
// runs back there too (`drain`). Each run is a trace span (`run <kind>`, in the trace of the request
// that queued it when the job carried one), every log line written while it works names it, and
// its end is counted in the metrics.

import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AppError } from '../../core/errors.ts';
import { TargetError } from '../../dialects/errors.ts';
import { withLogFields } from '../../observability/log-context.ts';
import { recordRunEnd, rowsWritten } from '../../observability/run-metrics.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { EventsService } from '../events/events.service.ts';
import { emitRunEnd, finishRunWithEvents, type RunOutcome } from './run-events.ts';
import {
  RunCancelled,
  type RunContext,
  RunFailed,
  type RunHandler,
  type RunHandlers,
} from './run-handler.ts';
import { type RunKinds, touchedConnectionIds } from './run-kinds.ts';
import { requesterRefusal } from './run-requester.ts';
import {
  claimRun,
  failInterruptedRuns,
  findRunById,
  heartbeat,
  isCancelRequested,
  runningWorkerIds,
  setProgress,
  setRunningResult,
  staleQueuedRuns,
} from './runs.repo.ts';

/** What a run handed back at a stop says when nothing of it stays on the target. */
export const HANDED_BACK_ERROR =
  'interrupted, nothing half-written: the service stopped before the run finished (start it again)';

/** What `drain` did with the runs this process was working. */
export interface DrainReport {
  /** Runs that ended by themselves within the grace. */
  finished: number;
  /** Runs stopped at a checkpoint once the grace had passed, and failed as interrupted. */
  handedBack: string[];
  /** Runs that reached no checkpoint in time: the next process's sweep fails them as interrupted. */
  abandoned: string[];
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

  const tracer = trace.getTracer('dbops');
  /** The runs this process works now, and what ends when each is done. */
  const inFlight = new Map<string, Promise<void>>();
  /** Set once a stop's grace has passed: the next checkpoint of every run hands it back. */
  let handingBack = false;
  /** Cleared when a stop begins: a run claimed after it would only be handed back. */
  let accepting = true;
  const handedBack = new Set<string>();

  /** Records the end and counts it (after the store has it: a failed write is not an end). */
  async function end(run: Run, outcome: RunOutcome, startedMs: number): Promise<void> {
    await finishRun(db, run.id, outcome, now());
    if (outcome.status === 'succeeded' || outcome.status === 'failed' || outcome.status === 'cancelled')
      recordRunEnd(
        run.kind,
        outcome.status,
        (performance.now() - startedMs) / 1000,
        outcome.status === 'succeeded' ? rowsWritten(outcome.result ?? undefined) : 0,
      );
  }

  /** The run's end once it was handed back at a checkpoint, and its subject put back. */
  async function endHandedBack(run: Run, result: Record<string, unknown> | undefined, startedMs: number) {
    const error = result
      ? 'interrupted: the service stopped before the run finished; the result says what was done'
      : HANDED_BACK_ERROR;
    await end(run, { status: 'failed', error, ...(result && { result }) }, startedMs);
    logger.info(
      { run_id: run.id, kind: run.kind },
      'run handed back at a checkpoint: the service is stopping',
    );
    // As after a process died: the kind decides from the target what its subject now is.
    const recover = deps.kinds.get(run.kind)?.interrupted;
    if (recover)
      await recover({ ...run, status: 'failed', error }).catch((failure: unknown) =>
        logger.error(
          { err: failure, run_id: run.id },
          'the subject of an interrupted run could not be recovered',
        ),
      );
  }

  async function work(run: Run, handler: RunHandler, startedMs: number): Promise<void> {
    const touched = deps.kinds.get(run.kind)?.touches(run.params);
    const span = tracer.startSpan(`run ${run.kind}`, {
      attributes: {
        'dbops.run.id': run.id,
        'dbops.run.kind': run.kind,
        'dbops.project.id': run.project_id,
        // The statements on targets under this span are on these connections.
        ...(touched && { 'dbops.connection.ids': touchedConnectionIds(touched) }),
      },
    });
    const runContext: RunContext = {
      async progress(done, total) {
        await setProgress(db, run.id, done, total);
        if (handingBack) {
          handedBack.add(run.id);
          throw new RunCancelled();
        }
        if (await isCancelRequested(db, run.id)) throw new RunCancelled();
      },
      report: (result) => setRunningResult(db, run.id, result),
    };
    try {
      await context.with(trace.setSpan(context.active(), span), async () => {
        try {
          const result = await handler(run, runContext);
          span.setAttribute('dbops.run.rows', rowsWritten(result));
          await end(run, { status: 'succeeded', result }, startedMs);
        } catch (error) {
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.message : 'failed',
          });
          if (error instanceof RunCancelled && handedBack.has(run.id))
            await endHandedBack(run, error.result, startedMs);
          else if (error instanceof RunCancelled)
            await end(run, { status: 'cancelled', ...(error.result && { result: error.result }) }, startedMs);
          else if (error instanceof RunFailed)
            await end(run, { status: 'failed', error: error.message, result: error.result }, startedMs);
          else await end(run, { status: 'failed', error: describe(run, error) }, startedMs);
        }
      });
    } finally {
      span.end();
    }
  }

  async function claimAndWork(runId: string): Promise<void> {
    const run = await claimRun(db, runId, workerId, now());
    if (!run) return;
    const startedMs = performance.now();
    await withLogFields({ run_id: run.id, kind: run.kind }, async () => {
      const handler = handlers[run.kind];
      if (!handler) {
        await end(run, { status: 'failed', error: `No worker can run ${run.kind} yet` }, startedMs);
        return;
      }
      // Rights are checked when a run is asked for, and again when it starts: whoever asked may have
      // lost them while it waited in the queue (run-requester.ts).
      const refusal = await requesterRefusal(db, run, deps.kinds);
      if (refusal !== null) {
        await end(run, { status: 'cancelled', error: refusal }, startedMs);
        return;
      }
      await work(run, handler, startedMs);
    });
  }

  return {
    /** Runs one queued run to its end; a run that is not queued any more is left alone. */
    async execute(runId: string): Promise<void> {
      // A stopping process takes no new run: the job's run stays queued, and the sweep of whichever
      // process works next sends it again.
      if (!accepting) return;
      // In flight from before its claim: a stop that begins meanwhile waits for it too.
      const working = claimAndWork(runId);
      inFlight.set(runId, working);
      try {
        await working;
      } finally {
        inFlight.delete(runId);
      }
    },

    /**
     * A stop: lets the runs in flight finish for `graceMs` (never stopping one earlier), then hands
     * the rest back at their next checkpoint, waiting up to `handBackMs` for them to get there.
     */
    async drain(graceMs: number, handBackMs: number): Promise<DrainReport> {
      accepting = false;
      const started = [...inFlight.keys()];
      const settled = (ms: number) =>
        Promise.race([
          Promise.allSettled([...inFlight.values()]).then(() => true),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
        ]);
      if (!(await settled(graceMs))) {
        handingBack = true;
        await settled(handBackMs);
      }
      handingBack = true;
      const abandoned = [...inFlight.keys()];
      const back = started.filter((id) => handedBack.has(id));
      return { finished: started.length - back.length - abandoned.length, handedBack: back, abandoned };
    },

    /** The runs this process is working now. */
    inFlight: () => inFlight.size,

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

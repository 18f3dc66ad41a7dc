// Runs: the one model of every operation that runs as a job (docs/contract.md §7). Modules start one through
// `start` (run-start.ts: access on every connection touched, one run of a subject at a time, the
// approval gate, the run and its audit entry in one transaction, the send after the commit); work
// done inline (a drift check) is recorded finished with `recordFinished`.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { conflict, notFound } from '../../core/errors.ts';
import { isOrgAdmin } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Run } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireProject } from '../projects/projects.access.ts';
import type { RunKinds } from './run-kinds.ts';
import { createRunStart, type NewRun, type RunGate } from './run-start.ts';
import {
  cancelWaitingRun,
  findRun,
  insertFinishedRun,
  insertRun,
  type RunFilter,
  requestCancel,
  visibleRunsQuery,
} from './runs.repo.ts';

/** Sends a run to the job queue (src/jobs/run-queue.ts). */
export interface RunQueue {
  enqueue(runId: string): Promise<void>;
}

export type RunsService = ReturnType<typeof createRunsService>;

export function createRunsService(deps: {
  db: Db;
  audit: AuditService;
  queue: RunQueue;
  gate: RunGate;
  kinds: RunKinds;
  now: () => Date;
}) {
  const { db, audit, queue, now } = deps;

  /** A new run, written in the caller's transaction `trx`; it is sent to the queue after the commit. */
  async function insert(trx: Db, actor: Actor, input: NewRun): Promise<Run> {
    const run = await insertRun(trx, {
      id: randomUUID(),
      org_id: actor.principal.orgId,
      project_id: input.projectId,
      kind: input.kind,
      subject_id: input.subjectId,
      subject: input.subject,
      status: input.awaitingApprovalId ? 'awaiting_approval' : 'queued',
      approval_id: input.awaitingApprovalId,
      progress_total: input.total ?? null,
      progress_unit: input.unit,
      params: { ...input.params },
      created_by: actor.principal.userId,
      created_at: now(),
    });
    await audit.record(trx, actor, {
      action: 'run.create',
      projectId: input.projectId,
      target: { type: 'run', id: run.id, label: run.kind },
      details: { kind: run.kind, subject_id: run.subject_id, status: run.status },
    });
    return run;
  }

  /** Hands a queued run to the workers; harmless for a run that is not queued any more. */
  const enqueue = (run: Run) => (run.status === 'queued' ? queue.enqueue(run.id) : Promise.resolve());

  async function load(executor: Db, actor: Actor, id: string): Promise<Run> {
    const run = await findRun(executor, actor.principal.orgId, id);
    if (!run) throw notFound('Run');
    // Runs are visible to whoever can see their project; the 404 then names the run, not the project.
    await requireProject(executor, actor, run.project_id, 'project.read').catch(() => {
      throw notFound('Run');
    });
    return run;
  }

  return {
    /** Starts an operation as a run, through every rule that guards one (run-start.ts). */
    start: createRunStart({ db, audit, gate: deps.gate, kinds: deps.kinds, insert, enqueue }),

    enqueue,

    /**
     * A run recorded once it is over, in the caller's transaction, for work done inline rather than
     * on the queue (a drift check answers with its result): it never sits in `running`, so no sweep
     * has to end it after a crash.
     */
    recordFinished: insertFinishedRun,

    list(actor: Actor, filter: RunFilter, page: PageRequest) {
      const { principal } = actor;
      return paginate(
        visibleRunsQuery(db, principal.orgId, principal.userId, isOrgAdmin(principal), filter),
        page,
      );
    },

    get: (actor: Actor, id: string) => load(db, actor, id),

    /**
     * A run that has not started is cancelled at once; a running one is asked to stop and ends as
     * `cancelled` at its handler's next check. A finished run cannot be cancelled (409).
     */
    async cancel(actor: Actor, id: string): Promise<Run> {
      return db.transaction().execute(async (trx) => {
        const run = await load(trx, actor, id);
        await requireProject(trx, actor, run.project_id, 'run.cancel');
        const updated = (await cancelWaitingRun(trx, id, now())) ?? (await requestCancel(trx, id));
        if (!updated) throw conflict(`The run is ${run.status} and cannot be cancelled`);
        await audit.record(trx, actor, {
          action: 'run.cancel',
          projectId: run.project_id,
          target: { type: 'run', id, label: run.kind },
          details: { status_before: run.status },
        });
        return updated;
      });
    },
  };
}

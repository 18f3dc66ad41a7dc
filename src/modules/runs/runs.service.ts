// Runs: the one model of every operation that runs as a job (API §7). Modules create a run inside
// the transaction of their own change, then hand it to the queue after the commit (a pg-boss send
// inside a store transaction would wait on it on PGlite). A run whose send was lost stays queued
// and is sent again by the executor's sweep.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { conflict, notFound } from '../../core/errors.ts';
import { isOrgAdmin } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Run, RunKind } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireProject } from '../projects/projects.access.ts';
import {
  cancelWaitingRun,
  findRun,
  insertRun,
  type RunFilter,
  requestCancel,
  visibleRunsQuery,
} from './runs.repo.ts';

/** Sends a run to the job queue (src/jobs/run-queue.ts). */
export interface RunQueue {
  enqueue(runId: string): Promise<void>;
}

export interface NewRunInput {
  projectId: string;
  kind: RunKind;
  subjectId: string | null;
  params?: Record<string, unknown>;
  /** Known size of the work, in `unit`s, when it is known up front. */
  total?: number | null;
  unit: string;
  /** Set when the approval gate holds the run back. */
  awaitingApprovalId?: string | null;
}

export type RunsService = ReturnType<typeof createRunsService>;

export function createRunsService(deps: { db: Db; audit: AuditService; queue: RunQueue; now: () => Date }) {
  const { db, audit, queue, now } = deps;

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
    /** A new run, written in the caller's transaction `trx`; call `enqueue` after the commit. */
    async create(trx: Db, actor: Actor, input: NewRunInput): Promise<Run> {
      const run = await insertRun(trx, {
        id: randomUUID(),
        org_id: actor.principal.orgId,
        project_id: input.projectId,
        kind: input.kind,
        subject_id: input.subjectId,
        status: input.awaitingApprovalId ? 'awaiting_approval' : 'queued',
        approval_id: input.awaitingApprovalId ?? null,
        progress_total: input.total ?? null,
        progress_unit: input.unit,
        params: input.params ?? {},
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
    },

    /** Hands a queued run to the workers; harmless for a run that is not queued any more. */
    enqueue: (run: Run) => (run.status === 'queued' ? queue.enqueue(run.id) : Promise.resolve()),

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

// Runs in the store. Status changes are conditional updates (`where status = …`), so two processes
// can never both claim, finish or cancel the same run.
import type { Kysely } from 'kysely';
import type { Database, Run, RunKind, RunStatus, Subject } from '../../store/tables.ts';
import { isProjectMember } from '../projects/projects.repo.ts';

type Executor = Kysely<Database>;

export interface NewRun {
  id: string;
  org_id: string;
  project_id: string;
  kind: RunKind;
  subject_id: string | null;
  /** What the run is about; none for drift checks. */
  subject?: Subject | null;
  status: 'queued' | 'awaiting_approval';
  approval_id: string | null;
  progress_total: number | null;
  progress_unit: string;
  params: Record<string, unknown>;
  created_by: string | null;
  created_at: Date;
}

export async function insertRun(db: Executor, run: NewRun): Promise<Run> {
  return db
    .insertInto('runs')
    .values({
      ...run,
      params: JSON.stringify(run.params),
      subject: run.subject ? JSON.stringify(run.subject) : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A run recorded once it is over, for work done inline rather than on the queue (a drift check
 * answers with its result): it never sits in `running`, so no sweep has to end it after a crash.
 */
export async function insertFinishedRun(
  db: Executor,
  run: Omit<NewRun, 'status' | 'approval_id'> & {
    status: 'succeeded' | 'failed';
    result: Record<string, unknown> | null;
    error: string | null;
    started_at: Date;
    finished_at: Date;
  },
): Promise<Run> {
  const { params, result, subject, ...rest } = run;
  return db
    .insertInto('runs')
    .values({
      ...rest,
      subject: subject ? JSON.stringify(subject) : null,
      approval_id: null,
      progress_done: run.progress_total ?? 0,
      params: JSON.stringify(params),
      result: result ? JSON.stringify(result) : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The run of `subjectId` that is queued, awaiting approval or running, if any: a subject runs one
 * operation at a time (the caller holds the subject's lock, so two requests cannot both miss it).
 */
export async function activeRunOf(db: Executor, subjectId: string) {
  return db
    .selectFrom('runs')
    .select(['id', 'kind', 'status'])
    .where('subject_id', '=', subjectId)
    .where('status', 'in', ['queued', 'awaiting_approval', 'running'])
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The runs in flight of these subjects, by subject (for lists' `allowed_actions`, one query a page). */
export async function activeRunsOf(
  db: Executor,
  subjectIds: string[],
): Promise<Map<string, { id: string; status: RunStatus }>> {
  if (subjectIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('runs')
    .select(['id', 'status', 'subject_id'])
    .where('subject_id', 'in', subjectIds)
    .where('status', 'in', ['queued', 'awaiting_approval', 'running'])
    .orderBy('created_at', 'asc')
    .execute();
  return new Map(rows.map((row) => [row.subject_id!, { id: row.id, status: row.status }]));
}

export async function findRun(db: Executor, orgId: string, id: string): Promise<Run | undefined> {
  return db
    .selectFrom('runs')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findRunById(db: Executor, id: string): Promise<Run | undefined> {
  return db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface RunFilter {
  project_id?: string;
  kind?: RunKind;
  status?: RunStatus;
}

/** Runs of the projects a user can see: all of the organization's for organization admins. */
export function visibleRunsQuery(
  db: Executor,
  orgId: string,
  userId: string,
  seesAll: boolean,
  filter: RunFilter,
) {
  let query = db
    .selectFrom('runs')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (!seesAll) {
    query = query.where(isProjectMember('runs.project_id', userId));
  }
  if (filter.project_id) query = query.where('project_id', '=', filter.project_id);
  if (filter.kind) query = query.where('kind', '=', filter.kind);
  if (filter.status) query = query.where('status', '=', filter.status);
  return query;
}

/** Takes a queued run for this worker; undefined when it is no longer queued (taken, cancelled). */
export async function claimRun(
  db: Executor,
  id: string,
  workerId: string,
  now: Date,
): Promise<Run | undefined> {
  return db
    .updateTable('runs')
    .set({ status: 'running', worker_id: workerId, heartbeat_at: now, started_at: now })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .returningAll()
    .executeTakeFirst();
}

export async function setProgress(db: Executor, id: string, done: number, total: number | null | undefined) {
  await db
    .updateTable('runs')
    .set({ progress_done: done, ...(total !== undefined && { progress_total: total }) })
    .where('id', '=', id)
    .execute();
}

/**
 * The result so far of a running run, written as its work goes: what a run whose process is killed
 * leaves for its kind's `interrupted` hook (and for anyone reading the run meanwhile).
 */
export async function setRunningResult(db: Executor, id: string, result: Record<string, unknown>) {
  await db
    .updateTable('runs')
    .set({ result: JSON.stringify(result) })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

/** The result (and, when given, the error) of a run failed as interrupted, once its kind found out what it did. */
export async function amendInterruptedRun(
  db: Executor,
  id: string,
  amended: { error?: string; result: Record<string, unknown> },
) {
  await db
    .updateTable('runs')
    .set({
      ...(amended.error !== undefined && { error: amended.error }),
      result: JSON.stringify(amended.result),
    })
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .execute();
}

export async function finishRun(
  db: Executor,
  id: string,
  outcome: {
    status: 'succeeded' | 'failed' | 'cancelled';
    result?: Record<string, unknown> | null;
    error?: string | null;
  },
  now: Date,
): Promise<void> {
  await db
    .updateTable('runs')
    .set({
      status: outcome.status,
      result: outcome.result ? JSON.stringify(outcome.result) : null,
      error: outcome.error ?? null,
      finished_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

/**
 * Cancels a run that has not started; returns it, or undefined when it was not waiting. `error`
 * says why when the service, not a person, cancels it.
 */
export async function cancelWaitingRun(
  db: Executor,
  id: string,
  now: Date,
  error: string | null = null,
): Promise<Run | undefined> {
  return db
    .updateTable('runs')
    .set({ status: 'cancelled', finished_at: now, error })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'awaiting_approval'])
    .returningAll()
    .executeTakeFirst();
}

/**
 * The runs waiting for this approval, locked: the approval's grant looks at each (its requester's
 * rights) before it queues or cancels it, and no cancel by a person slips in between.
 */
export async function lockRunsOfApproval(db: Executor, approvalId: string): Promise<Run[]> {
  return db
    .selectFrom('runs')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .where('status', '=', 'awaiting_approval')
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Starts a run that waited for its approval (now granted): `awaiting_approval → queued`. */
export async function queueWaitingRun(db: Executor, id: string): Promise<Run | undefined> {
  return db
    .updateTable('runs')
    .set({ status: 'queued' })
    .where('id', '=', id)
    .where('status', '=', 'awaiting_approval')
    .returningAll()
    .executeTakeFirst();
}

/** Cancels the runs that waited for this approval (rejected, expired or voided). */
export async function cancelRunsOfApproval(db: Executor, approvalId: string, now: Date): Promise<Run[]> {
  return db
    .updateTable('runs')
    .set({ status: 'cancelled', finished_at: now })
    .where('approval_id', '=', approvalId)
    .where('status', '=', 'awaiting_approval')
    .returningAll()
    .execute();
}

export async function requestCancel(db: Executor, id: string): Promise<Run | undefined> {
  return db
    .updateTable('runs')
    .set({ cancel_requested: true })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .returningAll()
    .executeTakeFirst();
}

export async function isCancelRequested(db: Executor, id: string): Promise<boolean> {
  const row = await db.selectFrom('runs').select('cancel_requested').where('id', '=', id).executeTakeFirst();
  return row?.cancel_requested ?? false;
}

export async function heartbeat(db: Executor, workerId: string, now: Date): Promise<void> {
  await db
    .updateTable('runs')
    .set({ heartbeat_at: now })
    .where('worker_id', '=', workerId)
    .where('status', '=', 'running')
    .execute();
}

/** The workers of the running runs. */
export async function runningWorkerIds(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('runs')
    .select('worker_id')
    .distinct()
    .where('status', '=', 'running')
    .where('worker_id', 'is not', null)
    .execute();
  return rows.flatMap((r) => (r.worker_id === null ? [] : [r.worker_id]));
}

/**
 * Fails running runs whose worker stopped beating before `staleBefore` or is known to be gone;
 * returns their ids.
 */
export async function failInterruptedRuns(
  db: Executor,
  staleBefore: Date,
  now: Date,
  goneWorkers: readonly string[] = [],
): Promise<string[]> {
  const rows = await db
    .updateTable('runs')
    .set({ status: 'failed', error: 'interrupted: the process working this run stopped', finished_at: now })
    .where('status', '=', 'running')
    .where((eb) =>
      eb.or([
        eb('heartbeat_at', 'is', null),
        eb('heartbeat_at', '<', staleBefore),
        ...(goneWorkers.length > 0 ? [eb('worker_id', 'in', [...goneWorkers])] : []),
      ]),
    )
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Queued runs older than `before`: their job may have been lost between commit and send. */
export async function staleQueuedRuns(db: Executor, before: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('runs')
    .select('id')
    .where('status', '=', 'queued')
    .where('created_at', '<', before)
    .limit(100)
    .execute();
  return rows.map((r) => r.id);
}

/** The runs of `kind` on a subject that ended without succeeding, other than `except`. */
export async function unsuccessfulRunIds(
  db: Executor,
  kind: RunKind,
  subjectId: string,
  except: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('runs')
    .select('id')
    .where('kind', '=', kind)
    .where('subject_id', '=', subjectId)
    .where('status', 'in', ['failed', 'cancelled'])
    .where('id', '!=', except)
    .execute();
  return rows.map((row) => row.id);
}

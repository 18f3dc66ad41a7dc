// Approvals and the decisions on them. Status changes are conditional updates (`where status = …`),
// so a decision, an expiry and a void racing on one approval cannot both take it somewhere.
import { type Insertable, type Kysely, sql } from 'kysely';
import type {
  Approval,
  ApprovalDecision,
  ApprovalKind,
  ApprovalStatus,
  ApprovalsTable,
  Database,
  PolicyRule,
} from '../../store/tables.ts';
import { isProjectMember } from '../projects/projects.repo.ts';

type Executor = Kysely<Database>;

/**
 * Inserts a pending approval; when another one is already pending for the same subject and kind
 * (a concurrent request won the race to the partial unique index), returns that one instead.
 */
export async function insertPendingApproval(
  db: Executor,
  approval: Omit<Insertable<ApprovalsTable>, 'status'>,
): Promise<{ approval: Approval; created: boolean }> {
  const inserted = await db
    .insertInto('approvals')
    .values({ ...approval, status: 'pending' })
    // The partial index's predicate as a literal: a parameter there matches no index once the
    // statement, prepared (src/store/prepared-statements.ts), runs on a generic plan.
    .onConflict((oc) =>
      oc.columns(['kind', 'subject_id']).where('status', '=', sql.lit('pending')).doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { approval: inserted, created: true };
  const existing = await db
    .selectFrom('approvals')
    .selectAll()
    .where('kind', '=', approval.kind)
    .where('subject_id', '=', approval.subject_id)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { approval: existing, created: false };
}

export async function findApproval(db: Executor, orgId: string, id: string): Promise<Approval | undefined> {
  return db
    .selectFrom('approvals')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Locks the approval until the transaction ends, so decisions on it are counted one at a time. */
export async function lockApproval(db: Executor, id: string): Promise<Approval | undefined> {
  return db.selectFrom('approvals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * The approvals of a subject that still mean something for the gate, newest first: pending ones,
 * approved ones not used yet, and rejections.
 */
export async function liveApprovalsOf(db: Executor, subjectId: string, kind?: ApprovalKind) {
  let query = db
    .selectFrom('approvals')
    .selectAll()
    .where('subject_id', '=', subjectId)
    .where((eb) =>
      eb.or([
        eb('status', 'in', ['pending', 'rejected']),
        eb.and([eb('status', '=', 'approved'), eb('consumed_at', 'is', null)]),
      ]),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .forUpdate();
  if (kind) query = query.where('kind', '=', kind);
  return query.execute();
}

/** Moves an approval out of `from`; undefined when it was no longer there (someone else moved it). */
export async function moveApproval(
  db: Executor,
  id: string,
  from: ApprovalStatus,
  to: ApprovalStatus,
  now: Date,
): Promise<Approval | undefined> {
  return db
    .updateTable('approvals')
    .set({ status: to, resolved_at: now })
    .where('id', '=', id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
}

export async function consumeApproval(db: Executor, id: string, now: Date): Promise<void> {
  await db.updateTable('approvals').set({ consumed_at: now }).where('id', '=', id).execute();
}

export async function insertDecision(db: Executor, decision: ApprovalDecision): Promise<void> {
  await db.insertInto('approval_decisions').values(decision).execute();
}

export async function findDecision(db: Executor, approvalId: string, userId: string) {
  return db
    .selectFrom('approval_decisions')
    .select('decision')
    .where('approval_id', '=', approvalId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export async function countApprovingDecisions(db: Executor, approvalId: string): Promise<number> {
  const rows = await db
    .selectFrom('approval_decisions')
    .select('user_id')
    .where('approval_id', '=', approvalId)
    .where('decision', '=', 'approve')
    .execute();
  return rows.length;
}

/** The decisions on these approvals, oldest first, in one query (lists need no query per approval). */
export async function decisionsOf(db: Executor, approvalIds: string[]): Promise<ApprovalDecision[]> {
  if (approvalIds.length === 0) return [];
  return db
    .selectFrom('approval_decisions')
    .selectAll()
    .where('approval_id', 'in', approvalIds)
    .orderBy('decided_at', 'asc')
    .orderBy('user_id', 'asc')
    .execute();
}

/** Who asked for these approvals, by user id (an account gone is absent). */
export async function requestersOf(db: Executor, userIds: string[]) {
  if (userIds.length === 0) return new Map<string, { id: string; email: string; name: string }>();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'email', 'name'])
    .where('id', 'in', userIds)
    .execute();
  return new Map(rows.map((u) => [u.id, u]));
}

export async function approvalsByIds(db: Executor, ids: string[]): Promise<Approval[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('approvals').selectAll().where('id', 'in', ids).execute();
}

export interface ApprovalFilter {
  project_id?: string;
  status?: ApprovalStatus;
}

/** Approvals of the projects a user can see: all of the organization's for organization admins. */
export function visibleApprovalsQuery(
  db: Executor,
  orgId: string,
  userId: string,
  seesAll: boolean,
  filter: ApprovalFilter,
) {
  let query = db
    .selectFrom('approvals')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (!seesAll) {
    query = query.where(isProjectMember('approvals.project_id', userId));
  }
  if (filter.project_id) query = query.where('project_id', '=', filter.project_id);
  if (filter.status) query = query.where('status', '=', filter.status);
  return query;
}

/** Pending approvals whose time ran out, oldest first. */
export async function duePendingApprovals(db: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('approvals')
    .select('id')
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .orderBy('expires_at', 'asc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The policy stored on the project; null means the default policy. */
export async function findProjectPolicy(db: Executor, projectId: string): Promise<PolicyRule[] | null> {
  const row = await db
    .selectFrom('projects')
    .select('policy')
    .where('id', '=', projectId)
    .executeTakeFirstOrThrow();
  return row.policy;
}

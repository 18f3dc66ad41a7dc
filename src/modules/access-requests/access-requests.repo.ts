// Just-in-time access requests and the grants they become. Status changes are conditional updates,
// so an approval, a revocation and the expiry job racing on one request cannot both win. The
// authorization reads active grants in src/modules/projects/projects.repo.ts (findProjectWithRole).
import { type Insertable, type Kysely, sql } from 'kysely';
import type {
  AccessRequest,
  AccessRequestStatus,
  AccessRequestsTable,
  Database,
  ProjectRole,
} from '../../store/tables.ts';

type Executor = Kysely<Database>;

export async function insertAccessRequest(
  db: Executor,
  request: Insertable<AccessRequestsTable>,
): Promise<AccessRequest> {
  return db.insertInto('access_requests').values(request).returningAll().executeTakeFirstOrThrow();
}

export async function findAccessRequest(db: Executor, orgId: string, id: string) {
  return db
    .selectFrom('access_requests')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A pending request of this user for the same access, if any (asking twice adds nothing). */
export async function findPendingDuplicate(
  db: Executor,
  request: { project_id: string; user_id: string; role: ProjectRole; connection_id: string | null },
) {
  return db
    .selectFrom('access_requests')
    .select('id')
    .where('project_id', '=', request.project_id)
    .where('user_id', '=', request.user_id)
    .where('role', '=', request.role)
    .where((eb) =>
      request.connection_id === null
        ? eb('connection_id', 'is', null)
        : eb('connection_id', '=', request.connection_id),
    )
    .where('status', '=', 'pending')
    .executeTakeFirst();
}

/**
 * The connection, when it belongs to this project of this organization. Reads the connections table
 * of migration 0005 (src/modules/connections) directly: only its id, project and environment.
 */
export async function findProjectConnection(db: Executor, orgId: string, projectId: string, id: string) {
  return db
    .selectFrom('connections')
    .select(['id', 'name', 'environment', 'protected'])
    .where('org_id', '=', orgId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface AccessRequestFilter {
  status?: AccessRequestStatus;
}

export function projectAccessRequestsQuery(db: Executor, projectId: string, filter: AccessRequestFilter) {
  let query = db
    .selectFrom('access_requests')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (filter.status) query = query.where('status', '=', filter.status);
  return query;
}

/** The request behind an approval turns into a grant running from `now` for its duration. */
export async function activateAccessRequest(db: Executor, approvalId: string, now: Date) {
  return db
    .updateTable('access_requests')
    .set({
      status: 'active',
      activated_at: now,
      expires_at: sql<Date>`${now}::timestamptz + make_interval(mins => duration_minutes)`,
    })
    .where('approval_id', '=', approvalId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Ends the request behind an approval that was not granted (rejected, or expired undecided). */
export async function endPendingAccessRequest(
  db: Executor,
  approvalId: string,
  to: 'rejected' | 'expired',
  now: Date,
) {
  return db
    .updateTable('access_requests')
    .set({ status: to, ended_at: now })
    .where('approval_id', '=', approvalId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

export async function revokeAccessRequest(db: Executor, id: string, by: string, now: Date) {
  return db
    .updateTable('access_requests')
    .set({ status: 'revoked', ended_at: now, revoked_by: by })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .returningAll()
    .executeTakeFirst();
}

/** Marks the grants whose time ran out as expired and returns them. */
export async function expireEndedGrants(db: Executor, now: Date, limit: number): Promise<AccessRequest[]> {
  return db
    .updateTable('access_requests')
    .set({ status: 'expired', ended_at: sql<Date>`expires_at` })
    .where(
      'id',
      'in',
      db
        .selectFrom('access_requests')
        .select('id')
        .where('status', '=', 'active')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit),
    )
    .where('status', '=', 'active')
    .returningAll()
    .execute();
}

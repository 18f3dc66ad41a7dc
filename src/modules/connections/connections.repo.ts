// Connections of projects. Rows carry the sealed password; the service never lets it out.
import type { Kysely, Updateable } from 'kysely';
import type { Connection, ConnectionsTable, Database } from '../../store/tables.ts';
import { isProjectMember } from '../projects/projects.repo.ts';

type Executor = Kysely<Database>;

export async function findConnection(db: Executor, orgId: string, id: string) {
  return db
    .selectFrom('connections')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** For the service's own work (jobs, other modules), which has no caller's organization to check. */
export async function findConnectionById(db: Executor, id: string) {
  return db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks the row until the transaction ends (snapshots serialise on it); undefined when it is gone. */
export async function lockConnection(db: Executor, id: string) {
  return db.selectFrom('connections').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * Connections of the organization, newest first: of one project, or of every project the user is a
 * member of (all projects for organization admins).
 */
export function connectionsQuery(
  db: Executor,
  scope: { orgId: string; projectId?: string; userId: string; seesAll: boolean },
) {
  let query = db
    .selectFrom('connections')
    .selectAll('connections')
    // The drift badge rides along as a subquery (on the partial index of pending reports): no query
    // per connection.
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('drift_reports')
            .select('drift_reports.id')
            .whereRef('drift_reports.connection_id', '=', 'connections.id')
            .where('drift_reports.status', '=', 'pending'),
        )
        .as('drift_pending'),
    )
    .where('connections.org_id', '=', scope.orgId)
    .orderBy('connections.created_at', 'desc')
    .orderBy('connections.id', 'desc');
  if (scope.projectId !== undefined) query = query.where('connections.project_id', '=', scope.projectId);
  else if (!scope.seesAll) {
    query = query.where(isProjectMember('connections.project_id', scope.userId));
  }
  return query;
}

/** Whether the connection has a drift report waiting to be acknowledged (its badge). */
export async function hasPendingDrift(db: Executor, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('drift_reports')
    .select('id')
    .where('connection_id', '=', id)
    .where('status', '=', 'pending')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function findConnectionByName(db: Executor, projectId: string, name: string, exceptId?: string) {
  let query = db
    .selectFrom('connections')
    .select('id')
    .where('project_id', '=', projectId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
  if (exceptId) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

export async function insertConnection(db: Executor, connection: Connection): Promise<Connection> {
  return db.insertInto('connections').values(connection).returningAll().executeTakeFirstOrThrow();
}

export async function updateConnection(
  db: Executor,
  id: string,
  changes: Omit<Updateable<ConnectionsTable>, 'id' | 'org_id' | 'project_id' | 'dialect' | 'created_at'>,
): Promise<Connection> {
  return db
    .updateTable('connections')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteConnection(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('connections').where('id', '=', id).execute();
}

// Loads a connection for an action, or refuses, through its project (requireProject): 404 "Connection
// not found" when it does not exist, belongs to another organization or to a project the caller has
// no role in (existence does not leak); 403 when the role or the key's scope is too low. Modules whose
// resources hang off a connection (snapshots, drift, patches) go through here.

import type { Actor } from '../../core/actors.ts';
import { AppError, invalid } from '../../core/errors.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { Connection, Project } from '../../store/tables.ts';
import { requireProjectResource } from '../projects/projects.access.ts';
import { findConnection } from './connections.repo.ts';

export async function requireConnection(
  db: Db,
  actor: Actor,
  id: string,
  action: Action,
  resource = 'Connection',
): Promise<{ connection: Connection; project: Project }> {
  const connection = await findConnection(db, actor.principal.orgId, id);
  // A just-in-time grant limited to this connection counts here too.
  const { row, project } = await requireProjectResource(
    db,
    actor,
    { name: resource, row: connection, connectionId: connection?.id },
    action,
  );
  return { connection: row, project };
}

/**
 * The connection a request body names for a project (its `field`): one that does not exist, that
 * the caller cannot see or that belongs to another project is answered as absent on that field (422
 * `not_found`), not 404, since the URL names neither; 403 when the role or the key's scope is too low.
 */
export async function requireBodyConnection(
  db: Db,
  actor: Actor,
  projectId: string,
  id: string,
  action: Action,
  field = 'connection_id',
): Promise<Connection> {
  const absent = () => invalid(['body', field], 'Connection not found in this project', 'not_found');
  const { connection } = await requireConnection(db, actor, id, action).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') throw absent();
    throw error;
  });
  if (connection.project_id !== projectId) throw absent();
  return connection;
}

// Loads a project for an action, or refuses: 404 when the caller cannot see it (another organization,
// or no role in it), 403 when the role or the key's scope is too low. Every module whose resources
// belong to a project goes through here. The role counted is the membership raised by the caller's
// active just-in-time grants (src/modules/access-requests): a grant limited to one connection counts
// only when the resource is that connection, so connection-scoped resources pass `connectionId`.

import type { Actor } from '../../core/actors.ts';
import { AppError, notFound } from '../../core/errors.ts';
import {
  type Action,
  decideOnProject,
  effectiveProjectRole,
  grantedProjectRole,
} from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { Project, ProjectRole } from '../../store/tables.ts';
import { findProjectWithRole } from './projects.repo.ts';

export interface ProjectAccessOptions {
  /** The connection the resource belongs to: grants limited to it count as well. */
  connectionId?: string;
}

/** The project and the caller's effective role in it (organization admins: admin). */
export async function requireProjectAccess(
  db: Db,
  actor: Actor,
  projectId: string,
  action: Action,
  options: ProjectAccessOptions = {},
): Promise<{ project: Project; role: ProjectRole }> {
  const { principal } = actor;
  const found = await findProjectWithRole(
    db,
    principal.orgId,
    projectId,
    principal.userId,
    options.connectionId,
  );
  const held = grantedProjectRole(found?.member_role ?? null, found?.grant_role ?? null);
  const decision = decideOnProject(principal, action, held);
  if (!found) throw new AppError('not_found', 'Project not found');
  if (!decision.allowed)
    throw new AppError(decision.status === 404 ? 'not_found' : 'forbidden', decision.reason);
  const { member_role: _, grant_role: __, ...project } = found;
  // Allowed implies a role: decideOnProject refuses (404) when there is none.
  return { project, role: effectiveProjectRole(principal, held)! };
}

export async function requireProject(
  db: Db,
  actor: Actor,
  projectId: string,
  action: Action,
  options: ProjectAccessOptions = {},
): Promise<Project> {
  return (await requireProjectAccess(db, actor, projectId, action, options)).project;
}

/**
 * A resource of a project (a patch, a migration, a webhook, a connection…) once the caller may do
 * `action` on it, through its project: 404 naming the resource when it does not exist, belongs to
 * another organization or to a project the caller has no role in (existence does not leak); 403
 * when the role or the key's scope is too low. `connectionId` is the connection the action
 * concerns, where a just-in-time grant on that connection counts.
 */
export async function requireProjectResource<Row extends { project_id: string }>(
  db: Db,
  actor: Actor,
  resource: { name: string; row: Row | undefined; connectionId?: string },
  action: Action,
): Promise<{ row: Row; project: Project }> {
  const { name, row, connectionId } = resource;
  if (!row) throw notFound(name);
  try {
    const project = await requireProject(db, actor, row.project_id, action, { connectionId });
    return { row, project };
  } catch (error) {
    throw error instanceof AppError && error.code === 'not_found' ? notFound(name) : error;
  }
}

/**
 * What the caller may do on the project, the grants limited to `connectionId` counted: the test
 * behind a resource's `allowed_actions`, the same decision its endpoints make.
 */
export async function callerRights(
  db: Db,
  actor: Actor,
  projectId: string,
  connectionId?: string,
): Promise<(action: Action) => boolean> {
  const { principal } = actor;
  const found = await findProjectWithRole(db, principal.orgId, projectId, principal.userId, connectionId);
  const held = grantedProjectRole(found?.member_role ?? null, found?.grant_role ?? null);
  return (action) => found !== undefined && decideOnProject(principal, action, held).allowed;
}

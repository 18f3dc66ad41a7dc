// Loads a project for an action, or refuses: 404 when the caller cannot see it (another organization,
// or no role in it), 403 when the role or the key's scope is too low. Every module whose resources
// belong to a project goes through here.
import type { Actor } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { type Action, decideOnProject } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { Project } from '../../store/tables.ts';
import { findProjectWithRole } from './projects.repo.ts';

export async function requireProject(
  db: Db,
  actor: Actor,
  projectId: string,
  action: Action,
): Promise<Project> {
  const { principal } = actor;
  const found = await findProjectWithRole(db, principal.orgId, projectId, principal.userId);
  const decision = decideOnProject(principal, action, found?.member_role ?? null);
  if (!found) throw new AppError('not_found', 'Project not found');
  if (!decision.allowed)
    throw new AppError(decision.status === 404 ? 'not_found' : 'forbidden', decision.reason);
  const { member_role: _, ...project } = found;
  return project;
}

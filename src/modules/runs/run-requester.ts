// A run executes with its requester's rights as they are when an approval releases it and when a
// worker starts it, not as they were when it was asked for: meanwhile a just-in-time grant may
// have expired or been revoked, or the requester been removed from the project, demoted,
// deactivated or deleted. The check is the one the operation's endpoint makes (src/security/policy.ts
// on the role of findProjectWithRole), with the requester read from the store instead of credentials.
import { decideOnProject, effectiveProjectRole, grantedProjectRole } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import { findProjectWithRole } from '../projects/projects.repo.ts';
import { findUser } from '../users/users.repo.ts';
import { type RunKinds, touchedConnectionIds } from './run-kinds.ts';

/**
 * Why the run's requester may no longer do it, or null when they still may. The run records its
 * requester, not the credential: a key's scopes were checked at the request, and a key never
 * exceeds its owner, so the owner's current rights are what is checked again here.
 */
export async function requesterRefusal(db: Db, run: Run, kinds: RunKinds): Promise<string | null> {
  // A kind no module registers yet has no action to check against; `drift_check` runs are recorded
  // finished and never wait.
  const registration = kinds.get(run.kind);
  if (!registration) return null;
  const { action } = registration;
  // Every connection the run touches, each with the grants limited to it: a grant on one opens no
  // other. A run touching none (its parameters name no connection) counts project-wide grants only.
  const touched = touchedConnectionIds(registration.touches(run.params));
  const refused = (why: string) => `The requester no longer may ${action} on this project (${why})`;
  if (run.created_by === null) return refused('the run records no requester');
  const user = await findUser(db, run.org_id, run.created_by);
  if (!user) return refused('their account no longer exists');
  if (user.deleted_at) return refused('their account was deleted');
  if (!user.active) return refused('their account is deactivated');
  const requester = { orgRole: user.org_role, scopes: null };
  for (const connectionId of touched.length > 0 ? touched : [undefined]) {
    const found = await findProjectWithRole(db, run.org_id, run.project_id, user.id, connectionId);
    const held = grantedProjectRole(found?.member_role ?? null, found?.grant_role ?? null);
    const decision = decideOnProject(requester, action, held);
    if (decision.allowed) continue;
    if (decision.status === 404) return refused('they are no longer a member of it');
    return refused(`${decision.reason}; they hold ${effectiveProjectRole(requester, held)}`);
  }
  return null;
}

// A run executes with its requester's rights as they are when an approval releases it and when a
// worker starts it, not as they were when it was asked for: meanwhile a just-in-time grant may
// have expired or been revoked, or the requester been removed from the project, demoted,
// deactivated or deleted. The check is the one the operation's endpoint makes (src/security/policy.ts
// on the role of findProjectWithRole), with the requester read from the store instead of credentials.
import {
  type Action,
  decideOnProject,
  effectiveProjectRole,
  grantedProjectRole,
} from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { Run, RunKind } from '../../store/tables.ts';
import { findMigration } from '../migrations/migrations.repo.ts';
import { findPatch } from '../patches/patches.repo.ts';
import { findProjectWithRole } from '../projects/projects.repo.ts';
import { findUser } from '../users/users.repo.ts';

interface Requirement {
  action: Action;
  /** The connection the run targets: a grant limited to it counts, as it did at the request. */
  connectionId: string | undefined;
}

type RequirementOf = (db: Db, run: Run) => Promise<Requirement>;

const onPatch =
  (action: Action): RequirementOf =>
  async (db, run) => ({
    action,
    connectionId: run.subject_id
      ? (await findPatch(db, run.org_id, run.subject_id))?.connection_id
      : undefined,
  });

const onMigration =
  (action: Action): RequirementOf =>
  async (db, run) => ({
    action,
    connectionId: run.subject_id
      ? (await findMigration(db, run.org_id, run.subject_id))?.target_connection_id
      : undefined,
  });

/**
 * What each kind's endpoint requires (patches.service.ts, migrations.service.ts). A Record, so that
 * a new kind must say what its requester needs. A subject gone meanwhile leaves only project-wide
 * grants to count, the stricter reading.
 */
const REQUIREMENTS: Record<RunKind, RequirementOf | null> = {
  patch_execute: onPatch('patch.execute'),
  patch_rollback: onPatch('patch.rollback'),
  migration_apply: onMigration('migration.apply'),
  migration_rollback: onMigration('migration.rollback'),
  // Not built yet, so the policy has no action to check them against: they are released as
  // before. Their modules add the action here along with it.
  seed_run: null,
  anonymize_run: null,
  bridge_run: null,
  // Checked inline and recorded finished (drift-check.ts): never waits for an approval.
  drift_check: null,
};

/**
 * Why the run's requester may no longer do it, or null when they still may. The run records its
 * requester, not the credential: a key's scopes were checked at the request, and a key never
 * exceeds its owner, so the owner's current rights are what is checked again here.
 */
export async function requesterRefusal(db: Db, run: Run): Promise<string | null> {
  const requirementOf = REQUIREMENTS[run.kind];
  if (!requirementOf) return null;
  const { action, connectionId } = await requirementOf(db, run);
  const refused = (why: string) => `The requester no longer may ${action} on this project (${why})`;
  if (run.created_by === null) return refused('the run records no requester');
  const user = await findUser(db, run.org_id, run.created_by);
  if (!user) return refused('their account no longer exists');
  if (user.deleted_at) return refused('their account was deleted');
  if (!user.active) return refused('their account is deactivated');
  const found = await findProjectWithRole(db, run.org_id, run.project_id, user.id, connectionId);
  const held = grantedProjectRole(found?.member_role ?? null, found?.grant_role ?? null);
  const requester = { orgRole: user.org_role, scopes: null };
  const decision = decideOnProject(requester, action, held);
  if (decision.allowed) return null;
  if (decision.status === 404) return refused('they are no longer a member of it');
  return refused(`${decision.reason}; they hold ${effectiveProjectRole(requester, held)}`);
}

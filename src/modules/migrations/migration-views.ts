// A migration as one caller sees it: the stored row and `allowed_actions`, what the server would
// accept now from this caller (API §8). The role is the one the endpoints count (the project
// membership raised by just-in-time grants for the migration's target, org admins as admins) and
// the decision is theirs too (security/policy.ts), so a client never re-derives either.
import type { Actor } from '../../core/actors.ts';
import { decideOnProject } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { ProjectRole, SchemaMigration } from '../../store/tables.ts';
import { requireProjectAccess } from '../projects/projects.access.ts';
import { lintErrors } from './migration-guards.ts';
import { allowedActions, type MigrationAction } from './migration-states.ts';

export type MigrationView = SchemaMigration & { allowed_actions: MigrationAction[] };

export function viewFor(actor: Actor, migration: SchemaMigration, role: ProjectRole): MigrationView {
  const allowed = allowedActions(
    {
      status: migration.status,
      failed_operation: migration.failed_operation,
      lint_error: lintErrors(migration.lint_warnings).length > 0,
      has_rollback: migration.rollback !== null && migration.rollback_sql !== null,
    },
    (action) => decideOnProject(actor.principal, `migration.${action}`, role).allowed,
  );
  return { ...migration, allowed_actions: allowed };
}

/** Views of migrations of one project; the role is read once per target connection. */
export async function viewsFor(
  db: Db,
  actor: Actor,
  migrations: SchemaMigration[],
): Promise<MigrationView[]> {
  const roles = new Map<string, Promise<ProjectRole>>();
  const roleFor = (migration: SchemaMigration) => {
    const key = `${migration.project_id}/${migration.target_connection_id}`;
    let role = roles.get(key);
    if (!role) {
      role = requireProjectAccess(db, actor, migration.project_id, 'migration.read', {
        connectionId: migration.target_connection_id,
      }).then((access) => access.role);
      roles.set(key, role);
    }
    return role;
  };
  return Promise.all(
    migrations.map(async (migration) => viewFor(actor, migration, await roleFor(migration))),
  );
}

// A migration as one caller sees it: the stored row and `allowed_actions`, what the server would
// accept now from this caller (docs/contract.md §8). The rights are the ones the endpoints count (the project
// membership raised by just-in-time grants on each connection, org admins as admins) and the
// decision is theirs too (security/policy.ts), so a client never re-derives either.
import type { Actor } from '../../core/actors.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { SchemaMigration } from '../../store/tables.ts';
import { callerRights } from '../projects/projects.access.ts';
import { allowedActions, lintErrors, type MigrationAction } from './migration-states.ts';

export type MigrationView = SchemaMigration & { allowed_actions: MigrationAction[] };

/**
 * The migrations as `actor` sees them. Rights are read once per connection: edit needs the action on
 * the target; apply and rollback on the source too (their runs bring its schema to the target, and a
 * grant on one connection opens nothing on the other).
 */
export async function viewsFor(
  db: Db,
  actor: Actor,
  migrations: SchemaMigration[],
): Promise<MigrationView[]> {
  const rights = new Map<string, Promise<(action: Action) => boolean>>();
  const rightsOn = (projectId: string, connectionId: string) => {
    const key = `${projectId}/${connectionId}`;
    let found = rights.get(key);
    if (!found) {
      found = callerRights(db, actor, projectId, connectionId);
      rights.set(key, found);
    }
    return found;
  };
  return Promise.all(
    migrations.map(async (migration) => {
      const onTarget = await rightsOn(migration.project_id, migration.target_connection_id);
      const onSource = await rightsOn(migration.project_id, migration.source_connection_id);
      const allowed = allowedActions(
        {
          status: migration.status,
          failed_operation: migration.failed_operation,
          lint_error: lintErrors(migration.lint_warnings).length > 0,
          has_rollback: migration.rollback !== null && migration.rollback_sql !== null,
        },
        (action) => onTarget(`migration.${action}`) && (action === 'edit' || onSource(`migration.${action}`)),
      );
      return { ...migration, allowed_actions: allowed };
    }),
  );
}

export const viewOf = async (db: Db, actor: Actor, migration: SchemaMigration): Promise<MigrationView> =>
  (await viewsFor(db, actor, [migration]))[0]!;

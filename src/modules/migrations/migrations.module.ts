// Schema migrations: compare, edit, lint, and the runs that apply and roll them back.
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { Module, Shared } from '../module.ts';
import { createMigrationInterrupted } from './migration-interrupted.ts';
import { createMigrationRunHandlers } from './migration-runs.ts';
import { findMigration } from './migrations.repo.ts';
import { registerMigrationsRoutes } from './migrations.routes.ts';
import { createMigrationsService } from './migrations.service.ts';

/** The connection a migration run writes to: the migration's target. */
async function targetOf(db: Db, run: Run): Promise<string | undefined> {
  if (!run.subject_id) return undefined;
  return (await findMigration(db, run.org_id, run.subject_id))?.target_connection_id;
}

export function migrationsModule({ config, db, audit, connections, runs, gate, now }: Shared): Module {
  const migrations = createMigrationsService({ db, audit, connections, runs, gate, now });
  const handlers = createMigrationRunHandlers({
    db,
    connections,
    now,
    statementTimeoutMs: config.targets.statementTimeoutMs,
  });
  const interrupted = createMigrationInterrupted({ db, connections, now });
  return {
    name: 'migrations',
    routes: (api) => registerMigrationsRoutes(api, { migrations }),
    runKinds: [
      {
        kind: 'migration_apply',
        handler: handlers.migration_apply,
        action: 'migration.apply',
        connectionOf: targetOf,
        events: { succeeded: 'migration.applied', failed: 'migration.failed' },
        interrupted: interrupted.apply,
      },
      {
        kind: 'migration_rollback',
        handler: handlers.migration_rollback,
        action: 'migration.rollback',
        connectionOf: targetOf,
        events: { succeeded: 'migration.rolled_back' },
        interrupted: interrupted.rollback,
      },
    ],
    events: ['migration.applied', 'migration.failed', 'migration.rolled_back', 'run.failed'],
  };
}

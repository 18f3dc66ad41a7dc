// Schema migrations: compare, edit, lint, and the runs that apply and roll them back.
import type { Run } from '../../store/tables.ts';
import type { Module, Shared } from '../module.ts';
import { connectionParam, type RunConnections } from '../runs/run-kinds.ts';
import { createMigrationInterrupted } from './migration-interrupted.ts';
import { MigrationRunParams } from './migration-run-params.ts';
import { createMigrationRunHandlers } from './migration-runs.ts';
import { registerMigrationsRoutes } from './migrations.routes.ts';
import { createMigrationsService } from './migrations.service.ts';

/** A migration run writes its target's schema, after the source's as it was compared. */
function touches(params: Run['params']): RunConnections {
  return {
    writes: connectionParam(params, 'target_connection_id'),
    readsSchema: connectionParam(params, 'source_connection_id'),
  };
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
        params: MigrationRunParams,
        touches,
        events: { succeeded: 'migration.applied', failed: 'migration.failed' },
        interrupted: interrupted.apply,
      },
      {
        kind: 'migration_rollback',
        handler: handlers.migration_rollback,
        action: 'migration.rollback',
        params: MigrationRunParams,
        touches,
        events: { succeeded: 'migration.rolled_back' },
        interrupted: interrupted.rollback,
      },
    ],
    events: ['migration.applied', 'migration.failed', 'migration.rolled_back', 'run.failed'],
  };
}

// Data patches: dry-run, the runs that execute and roll them back, and the daily drop of the
// backups past BACKUP_RETENTION_DAYS.
import type { Run } from '../../store/tables.ts';
import type { Module, Shared } from '../module.ts';
import { connectionParam } from '../runs/run-kinds.ts';
import { createSnapshotAfterPatch } from '../snapshots/snapshot-after-patch.ts';
import { BACKUP_RETENTION_JOB, createBackupRetention } from './backup-retention.ts';
import { backupTablesOf } from './patch-images.ts';
import { createPatchInterrupted } from './patch-interrupted.ts';
import { PatchExecuteParams, PatchRollbackParams } from './patch-run-deps.ts';
import { createPatchRunHandlers } from './patch-runs.ts';
import { patchesWithBackupsOf } from './patches.repo.ts';
import { registerPatchesRoutes } from './patches.routes.ts';
import { createPatchesService } from './patches.service.ts';

/** A patch run writes to the patch's connection. */
const touches = (params: Run['params']) => ({ writes: connectionParam(params, 'connection_id') });

export function patchesModule(shared: Shared): Module {
  const { config, db, audit, connections, snapshots, gate, runs, logger, now } = shared;
  const statementTimeoutMs = config.targets.statementTimeoutMs;
  const patches = createPatchesService({ db, audit, connections, gate, runs, now, statementTimeoutMs });
  const interrupted = createPatchInterrupted({ db, connections, now });
  const handlers = createPatchRunHandlers({
    db,
    connections,
    snapshotAfterPatch: createSnapshotAfterPatch({ snapshots, logger }),
    now,
    statementTimeoutMs,
  });
  return {
    name: 'patches',
    routes: (api) => registerPatchesRoutes(api, { patches }),
    runKinds: [
      {
        kind: 'patch_execute',
        handler: handlers.patch_execute,
        action: 'patch.execute',
        params: PatchExecuteParams,
        touches,
        events: { succeeded: 'patch.executed', failed: 'patch.failed' },
        interrupted: interrupted.execute,
      },
      {
        kind: 'patch_rollback',
        handler: handlers.patch_rollback,
        action: 'patch.rollback',
        params: PatchRollbackParams,
        touches,
        events: { succeeded: 'patch.rolled_back' },
        interrupted: interrupted.rollback,
      },
    ],
    events: ['patch.executed', 'patch.failed', 'patch.rolled_back', 'run.failed'],
    // The backups of a connection's patches live in its database.
    ownedTables: {
      of: async (db, connection) =>
        (await patchesWithBackupsOf(db, connection.id)).flatMap((patch) =>
          backupTablesOf(connections.dialectOf(connection), patch),
        ),
    },
    schedules: [
      {
        name: BACKUP_RETENTION_JOB,
        cron: config.backupRetention.cron,
        run: createBackupRetention({
          db,
          connections,
          audit,
          logger,
          now,
          retentionDays: config.backupRetention.days,
        }),
        // A pass can wait on connect and statement timeouts of several targets: a generous expiry.
        retry: { limit: 3, delaySeconds: 60 },
        expireInSeconds: 30 * 60,
      },
    ],
  };
}

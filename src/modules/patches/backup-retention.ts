// Drops the backup tables that executing a data patch left in its target database (its before- and
// after-images, src/modules/patches/patch-images.ts) once the execution is BACKUP_RETENTION_DAYS old,
// and writes it down on the patch (`backups_dropped_at`: no rollback after it) and in the audit trail.
//
// Drop first, record after: a pass that stops in between leaves the patch due, and the next pass
// drops again (IF EXISTS) and records it; recording first could claim backups that still exist. A
// rollback caught by a drop fails whole (it restores in one transaction), it never restores half.
// Bounded: at most `batchSize` patches a pass, oldest first, a few connections at a time. A
// connection that fails is logged and its patches wait for the next pass; the others go on.

import { systemActor } from '../../core/actors.ts';
import { AppError } from '../../core/errors.ts';
import type { TargetHandle } from '../../dialects/dialect.ts';
import type { Db } from '../../store/db.ts';
import type { Patch } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import type { Logger } from '../module.ts';
import { backupTablesOf } from './patch-images.ts';
import { markBackupsDropped, patchesWithBackupsDue, patchWithBackupsDue } from './patches.repo.ts';

export const BACKUP_RETENTION_JOB = 'backup_retention';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Patches one pass handles at most; the rest waits for the next pass. */
const BATCH_SIZE = 100;
/** Connections worked at once: an unreachable one costs a connect timeout, not the whole pass. */
const CONCURRENCY = 4;
/** Tables per DROP TABLE: on PostgreSQL each one dropped holds a lock until its transaction ends. */
const TABLES_PER_DROP = 100;
/** The failures named in a pass's result (all of them are in the log). */
const ERRORS_LISTED = 50;

const ACTOR = systemActor(BACKUP_RETENTION_JOB);

export interface BackupRetentionResult {
  /** Patches past their retention that the pass took up. */
  due: number;
  dropped: number;
  /** Left for the next pass because their connection failed. */
  failed: number;
  errors: { patch_id: string; connection_id: string; error: string }[];
}

export interface BackupRetentionDeps {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById' | 'dialectOf'>;
  logger: Logger;
  audit: AuditService;
  /** BACKUP_RETENTION_DAYS. */
  retentionDays: number;
  now?: () => Date;
  batchSize?: number;
}

/** One pass; returns what it dropped and what it left for the next pass. */
export function createBackupRetention({
  db,
  connections,
  logger,
  audit,
  retentionDays,
  now = () => new Date(),
  batchSize = BATCH_SIZE,
}: BackupRetentionDeps) {
  async function dropBackups(patch: Patch, handle: Pick<TargetHandle, 'transaction' | 'sql'>) {
    const tables = backupTablesOf(handle.sql, patch);
    for (let i = 0; i < tables.length; i += TABLES_PER_DROP) {
      const names = tables.slice(i, i + TABLES_PER_DROP).join(', ');
      await handle.transaction((tx) => tx.query(`DROP TABLE IF EXISTS ${names}`), { commit: true });
    }
  }

  /** The due patches of one connection, in order; the first failure leaves the rest for the next pass. */
  async function cleanConnection(
    connectionId: string,
    patches: Patch[],
    cutoff: Date,
    result: BackupRetentionResult,
  ): Promise<void> {
    let position = 0;
    try {
      const connection = await connections.findById(connectionId);
      if (!connection) return; // deleted meanwhile, and its patches with it
      for (; position < patches.length; position++) {
        // Read again: a rollback may have started since the list was read (its run needs the tables).
        const patch = await patchWithBackupsDue(db, patches[position]!.id, cutoff);
        if (!patch) continue;
        await connections.withTarget(connection, (handle) => dropBackups(patch, handle));
        const recorded = await db.transaction().execute(async (trx) => {
          const marked = await markBackupsDropped(trx, patch.id, now());
          if (!marked) return false;
          await audit.record(trx, ACTOR, {
            action: 'patch.backups_drop',
            orgId: marked.org_id,
            projectId: marked.project_id,
            target: { type: 'patch', id: marked.id, label: marked.title },
            details: {
              run_id: marked.execute_run_id,
              executed_at: marked.executed_at?.toISOString() ?? null,
              statements: marked.statements.length,
              retention_days: retentionDays,
            },
          });
          return true;
        });
        if (recorded) result.dropped += 1;
      }
    } catch (error) {
      const left = patches.slice(position);
      result.failed += left.length;
      const text =
        error instanceof AppError && typeof error.detail === 'string' ? error.detail : String(error);
      for (const patch of left)
        if (result.errors.length < ERRORS_LISTED)
          result.errors.push({ patch_id: patch.id, connection_id: connectionId, error: text });
      logger.warn(
        {
          err: error,
          job: BACKUP_RETENTION_JOB,
          connection_id: connectionId,
          patch_ids: left.map((p) => p.id),
        },
        'patch backups not dropped: the next pass tries again',
      );
    }
  }

  return async function backupRetentionPass(): Promise<BackupRetentionResult> {
    const cutoff = new Date(now().getTime() - retentionDays * DAY_MS);
    const due = await patchesWithBackupsDue(db, cutoff, batchSize);
    const byConnection = Map.groupBy(due, (patch) => patch.connection_id);
    const groups = [...byConnection.entries()];
    const result: BackupRetentionResult = { due: due.length, dropped: 0, failed: 0, errors: [] };
    let next = 0;
    const lane = async () => {
      while (next < groups.length) {
        const [connectionId, patches] = groups[next++]!;
        await cleanConnection(connectionId, patches, cutoff, result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, groups.length) }, lane));
    logger.info(
      { job: BACKUP_RETENTION_JOB, due: result.due, dropped: result.dropped, failed: result.failed },
      'patch backups past retention dropped',
    );
    return result;
  };
}

/** Registers `backup_retention`; returns what closes its target pools. */

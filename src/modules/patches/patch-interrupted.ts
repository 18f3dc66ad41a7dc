// After the process working a patch run died (kill -9, a lost machine), the sweep fails the run as
// interrupted and calls here to put the patch back in a state a new run can start from, telling
// from the target what the dead run did. The execution's data and its before-images are written in
// one transaction, into image tables created empty beforehand: rows in the run's images mean the
// transaction committed (the patch is applied, and never applied again); none mean it rolled back.
import type { Run } from '../../store/tables.ts';
import { backupTablesOf } from './patch-images.ts';
import type { PatchRunDeps } from './patch-run-deps.ts';
import { findPatchById, movePatchStatus } from './patches.repo.ts';

export function createPatchInterrupted(deps: Pick<PatchRunDeps, 'db' | 'connections' | 'now'>) {
  const { db, connections, now } = deps;

  /** Whether any of `tables` has a row; a table the dead run never created has none. */
  async function anyRows(connection: Parameters<typeof connections.withTarget>[0], tables: string[]) {
    return connections.withTarget(connection, async (handle) => {
      for (const table of tables) {
        const found = await handle
          .transaction(
            async (tx) => (await tx.query(`SELECT 1 AS one FROM ${table} LIMIT 1`)).rows.length > 0,
            {
              commit: false,
            },
          )
          .catch(() => false);
        if (found) return true;
      }
      return false;
    });
  }

  return {
    async execute(run: Run): Promise<void> {
      const patch = run.subject_id ? await findPatchById(db, run.subject_id) : undefined;
      if (patch?.status !== 'executing') return;
      const connection = await connections.findById(patch.connection_id);
      const applied =
        connection !== undefined &&
        (await anyRows(connection, backupTablesOf(connection.dialect, patch, run.id)));
      const at = now();
      await movePatchStatus(
        db,
        patch.id,
        ['executing'],
        applied
          ? { status: 'executed', execute_run_id: run.id, executed_at: at, updated_at: at }
          : { status: 'failed', updated_at: at },
      );
    },

    /**
     * A rollback interrupted: its restore was one transaction, so the patch is back to `executed`;
     * if the restore had committed, the next rollback finds every row changed since (conflicts)
     * and asks for `force` rather than restoring blindly.
     */
    async rollback(run: Run): Promise<void> {
      if (!run.subject_id) return;
      await movePatchStatus(db, run.subject_id, ['executing'], { status: 'executed', updated_at: now() });
    },
  };
}

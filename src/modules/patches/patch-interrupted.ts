// After the process working a patch run died (kill -9, a lost machine), the sweep fails the run as
// interrupted and calls here to put the patch back in a state a new run can start from, telling
// from the target what the dead run did. The execution's data and its before-images are written in
// one transaction, into image tables created empty beforehand: rows in the run's images mean the
// transaction committed (the patch is applied, and never applied again); none mean it rolled back.
// A rollback's restore is one transaction too, and leaves no mark of its own: the target tells
// whether it committed by holding every row as its before-image says (the rollback's own check).

import type { Patch, Run } from '../../store/tables.ts';
import { backupTable, backupTablesOf } from './patch-images.ts';
import { planFor } from './patch-rollback.ts';
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

  /**
   * Whether the target holds the patch's rows as before it: what a committed restore leaves. False
   * when it cannot be told (the connection, a table or a key gone: the patch stays executed).
   */
  async function restored(patch: Patch): Promise<boolean> {
    const runId = patch.execute_run_id;
    const connection = await connections.findById(patch.connection_id);
    if (!connection || runId === null) return false;
    const sql = connections.dialectOf(connection);
    return connections.withTarget(connection, async (handle) => {
      const model = await handle.introspect();
      const checks = patch.statements.map(
        (s) =>
          planFor(sql, model, runId, s, {
            xid: patch.execute_xid,
            force: false,
            laterDeletes: patch.statements
              .filter((d) => d.kind === 'delete' && d.index > s.index && d.table === s.table)
              .map((d) => backupTable(sql, runId, d.index)),
          }).verify,
      );
      return handle.transaction(
        async (tx) => {
          for (const check of checks) if (Number((await tx.query(check)).rows[0]?.n ?? 0) > 0) return false;
          return true;
        },
        { commit: false },
      );
    });
  }

  return {
    async execute(run: Run): Promise<void> {
      const patch = run.subject_id ? await findPatchById(db, run.subject_id) : undefined;
      if (patch?.status !== 'executing') return;
      const connection = await connections.findById(patch.connection_id);
      const applied =
        connection !== undefined &&
        (await anyRows(connection, backupTablesOf(connections.dialectOf(connection), patch, run.id)));
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
     * A rollback interrupted: its restore was one transaction. Committed (the rows are as before the
     * patch), the patch is rolled back, and a second rollback is refused; rolled back by the
     * server, the patch is executed again and a new rollback starts from the start.
     */
    async rollback(run: Run): Promise<void> {
      const patch = run.subject_id ? await findPatchById(db, run.subject_id) : undefined;
      if (patch?.status !== 'executing') return;
      const done = await restored(patch).catch(() => false);
      await movePatchStatus(db, patch.id, ['executing'], {
        status: done ? 'rolled_back' : 'executed',
        updated_at: now(),
      });
    },
  };
}

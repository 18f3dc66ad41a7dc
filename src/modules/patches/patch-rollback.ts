// The run handler of `patch_rollback` (docs/contract.md §9), for the job worker. It lists the rows changed
// since the patch, then restores in one transaction, last statement first, and checks the rows where
// a trigger fired.
//
// A rollback restores rows exactly as they were, so the table's own triggers must not fire while it
// does: a `last_update` trigger would stamp every restored row with the time of the rollback. Where
// the engine can (PostgreSQL), the dialect disables them inside the transaction and they are enabled
// again, each in the mode it had, before the commit. Where the engine cannot (MySQL), or the
// dialect may not (only the table's owner may), the verification reports the rows a trigger changed.

import { AppError, conflict, notFound } from '../../core/errors.ts';
import { countOf } from '../../core/plural.ts';
import { TargetError } from '../../dialects/errors.ts';
import type { SqlWriter } from '../../dialects/index.ts';
import { findTable } from '../../engine/patch/rollback-key.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Run, StoredPatchStatement } from '../../store/tables.ts';
import { type RunContext, RunFailed } from '../runs/run-handler.ts';
import { runParams } from '../runs/run-kinds.ts';
import { backupTable, writableColumns } from './patch-images.ts';
import { type RestorePlan, restorePlan } from './patch-restore-plan.ts';
import {
  assertSchemaAsRequested,
  PatchNoLongerFits,
  PatchRollbackParams,
  type PatchRunDeps,
} from './patch-run-deps.ts';
import { findPatchById, movePatchStatus, updatePatch } from './patches.repo.ts';

/**
 * Restores an executed patch in one transaction, statements in reverse order, by their keys.
 * Rows changed since the patch are conflicts: without `force` nothing is restored and the run
 * fails listing them; with it they are overwritten.
 */
export function createPatchRollback(deps: PatchRunDeps) {
  const { db, connections, now } = deps;

  return async function rollback(run: Run, context: RunContext): Promise<Record<string, unknown>> {
    const patch = run.subject_id ? await findPatchById(db, run.subject_id) : undefined;
    if (!patch) throw notFound('Patch');
    const connection = await connections.findById(patch.connection_id);
    if (!connection) throw notFound('Connection');
    const executeRun = patch.execute_run_id;
    if (executeRun === null) throw conflict('The patch has no before-images to restore');
    if (patch.backups_dropped_at !== null)
      throw conflict(
        `The patch's backups were dropped on ${patch.backups_dropped_at.toISOString()}: it cannot be rolled back`,
      );
    const params = runParams(PatchRollbackParams, run);
    const force = params.force === true;
    if (!(await movePatchStatus(db, patch.id, ['executed'], { status: 'executing', updated_at: now() })))
      throw conflict(`The patch is ${patch.status} and cannot be rolled back`);
    const sql = connections.dialectOf(connection);
    const reversed = [...patch.statements].reverse();
    await context.progress(0, reversed.length);
    const back = async (message: string, result: Record<string, unknown>): Promise<never> => {
      await updatePatch(db, patch.id, { status: 'executed', updated_at: now() });
      throw new RunFailed(message, result);
    };
    let outcome: { restored: RestoredStatement[]; conflicts: RollbackConflict[]; warnings: string[] };
    try {
      outcome = await connections.withTarget(connection, async (handle) => {
        const model = await handle.introspect();
        assertSchemaAsRequested(params, model);
        const plans = reversed.map((s) =>
          planFor(sql, model, executeRun, s, {
            xid: patch.execute_xid,
            force,
            laterDeletes: patch.statements
              .filter((d) => d.kind === 'delete' && d.index > s.index && d.table === s.table)
              .map((d) => backupTable(sql, executeRun, d.index)),
          }),
        );
        return handle.transaction(
          async (tx) => {
            // Fresh images have no statistics: without them the planner hashes the whole table.
            for (const image of new Set(plans.flatMap((p) => p.images))) {
              const analyze = sql.analyzeSql(image);
              if (analyze !== null) await tx.query(analyze);
            }
            const conflicts: RollbackConflict[] = [];
            for (const plan of plans) {
              const rows = (await tx.query(plan.conflicts)).rows;
              if (rows.length > 0) conflicts.push({ index: plan.index, table: plan.table, keys: rows });
            }
            if (conflicts.length > 0 && !force) throw new RollbackConflicts(conflicts);
            const restored: RestoredStatement[] = [];
            const warnings: string[] = [];
            for (const [done, plan] of plans.entries()) {
              const triggers = await sql.pauseTriggers(tx, plan.tableSql);
              if (triggers.state === 'firing')
                warnings.push(`The triggers of ${plan.table} fired during the restore: ${triggers.reason}`);
              let rows = 0;
              for (const restore of plan.restore) rows += (await tx.query(restore)).affectedRows;
              if (triggers.state === 'paused') await triggers.resume();
              // Without a trigger firing the restore is exact by construction; with one, it is checked.
              const fired =
                triggers.state === 'firing' || (triggers.state === 'unsupported' && plan.hasTriggers);
              const unequal = fired ? Number((await tx.query(plan.verify)).rows[0]?.n ?? 0) : 0;
              if (unequal > 0)
                warnings.push(
                  `Statement ${plan.index + 1}: ${countOf(unequal, 'row')} of ${plan.table} ${unequal === 1 ? 'is' : 'are'} not as before the patch after the restore (a trigger?)`,
                );
              restored.push({ index: plan.index, rows, unequal_rows: unequal });
              await context.progress(done + 1, plans.length);
            }
            return { restored, conflicts, warnings };
          },
          { commit: true, statementTimeoutMs: deps.statementTimeoutMs },
        );
      });
    } catch (error) {
      if (error instanceof RollbackConflicts)
        return back(
          `${countOf(
            error.conflicts.reduce((n, c) => n + c.keys.length, 0),
            'row',
          )} changed since the patch; nothing was restored (force: true overwrites them)`,
          { conflicts: error.conflicts, restored: false },
        );
      if (error instanceof PatchNoLongerFits) return back(error.message, { restored: false });
      if (error instanceof TargetError || error instanceof AppError)
        return back(`The rollback failed and nothing was restored: ${error.message}`, { restored: false });
      await updatePatch(db, patch.id, { status: 'executed', updated_at: now() });
      throw error;
    }
    await updatePatch(db, patch.id, { status: 'rolled_back', updated_at: now() });
    return {
      restored: outcome.restored,
      conflicts: outcome.conflicts,
      forced: force,
      exact: outcome.restored.every((r) => r.unequal_rows === 0),
      warnings: outcome.warnings,
    };
  };
}

/**
 * The restore plan of one executed statement: by the key decided at execute, over the columns its
 * images hold that the table still has (a column added since is left as it is).
 */
export function planFor(
  sql: SqlWriter,
  model: SchemaModel,
  runId: string,
  statement: StoredPatchStatement,
  options: { xid: string | null; force: boolean; laterDeletes: string[] },
): RestorePlan & { hasTriggers: boolean } {
  const table = findTable(model, statement.table);
  if (!table)
    throw new PatchNoLongerFits(
      `Statement ${statement.index + 1}: table ${statement.table} no longer exists`,
    );
  if (!statement.reversible || !statement.key)
    throw new PatchNoLongerFits(
      `Statement ${statement.index + 1} cannot be rolled back: ${statement.irreversible_reason ?? 'it was executed without a rollback key'}`,
    );
  if (sql.capabilities.rowVersions !== null && options.xid === null)
    throw new PatchNoLongerFits(
      'The patch was executed before dbops recorded its transaction: it cannot be rolled back',
    );
  const now = new Set(writableColumns(table));
  const columns = (statement.columns ?? [...now]).filter((c) => now.has(c));
  const missing = statement.key.filter((c) => !now.has(c));
  if (missing.length > 0)
    throw new PatchNoLongerFits(
      `Statement ${statement.index + 1}: key column ${missing.join(', ')} of ${statement.table} no longer exists`,
    );
  const hasTriggers = model.unmanaged.some(
    (u) => u.kind === 'trigger' && u.table === table.name && u.schema === table.schema,
  );
  const fixed = table.columns.filter((c) => c.identity === 'always').map((c) => c.name);
  return { ...restorePlan(sql, runId, statement, { ...options, columns, fixed }), hasTriggers };
}

interface RestoredStatement {
  index: number;
  /** Rows the restoring statements wrote. */
  rows: number;
  /** Rows still not as before the patch once restored (0 unless a trigger changed them). */
  unequal_rows: number;
}

interface RollbackConflict {
  index: number;
  table: string;
  /** The keys of the rows changed since the patch (at most 100 per statement). */
  keys: Record<string, unknown>[];
}

class RollbackConflicts extends Error {
  readonly conflicts: RollbackConflict[];
  constructor(conflicts: RollbackConflict[]) {
    super('rows changed since the patch');
    this.conflicts = conflicts;
  }
}

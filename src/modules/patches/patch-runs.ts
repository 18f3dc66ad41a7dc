// The run handlers of `patch_execute` and `patch_rollback` (API §9), for the job worker.
// Execute decides each statement's rollback key again on the schema as it is now, creates the empty
// images (patch-images.ts) in a first transaction (MySQL DDL commits by itself), then one
// transaction runs every statement writing its images and, when `expected_rows` was given and the
// total differs, rolls everything back: nothing changed, the run fails, the images are dropped.
// After a commit the patch is `executed` and a snapshot of the connection is taken. Rollback
// lists the rows changed since the patch, then restores in one transaction, last statement first,
// with the tables' triggers paused where the engine allows (paused-triggers.ts), and checks that
// the rows are as before.
import type { TargetTransaction } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import { findTable, keyOnModel } from '../../engine/patch/rollback-key.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { AppError, conflict, notFound } from '../../http/errors.ts';
import type { Db } from '../../store/db.ts';
import type { Run, StoredPatchStatement } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { type RunContext, RunFailed, type RunHandlers } from '../runs/runs.executor.ts';
import type { SnapshotAfterPatch } from '../snapshots/snapshot-after-patch.ts';
import {
  backupTable,
  createImageSql,
  finishAfterImage,
  imagesOf,
  PG_BACKUP_SCHEMA,
  type RestorePlan,
  restorePlan,
  runWithImages,
  writableColumns,
} from './patch-images.ts';
import { findPatchById, movePatchStatus, updatePatch } from './patches.repo.ts';
import { pauseTriggers } from './paused-triggers.ts';

class ExpectedRowsMismatch extends Error {
  readonly affected: number[];
  constructor(message: string, affected: number[]) {
    super(message);
    this.affected = affected;
  }
}

/** The patch cannot run as approved: a table is gone, or a statement lost its rollback key. */
class PatchNoLongerFits extends Error {}

/**
 * The statements with their rollback keys and columns decided again on the schema as it is now;
 * a statement that became irreversible stops the run unless irreversible ones were allowed.
 */
function refreshStatements(
  statements: StoredPatchStatement[],
  model: SchemaModel,
  allowIrreversible: boolean,
): (StoredPatchStatement & { columns: string[] })[] {
  return statements.map((statement) => {
    const keyed = keyOnModel(statement, model);
    if (!keyed)
      throw new PatchNoLongerFits(`Statement ${statement.index}: table ${statement.table} does not exist`);
    const { table, verdict } = keyed;
    if (!verdict.reversible && !allowIrreversible)
      throw new PatchNoLongerFits(
        `Statement ${statement.index} cannot be rolled back (${verdict.reason}); send allow_irreversible: true to execute it anyway`,
      );
    return {
      ...statement,
      reversible: verdict.reversible,
      irreversible_reason: verdict.reason,
      key: verdict.key,
      columns: writableColumns(table),
    };
  });
}

export function createPatchRunHandlers(deps: {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
  snapshotAfterPatch: SnapshotAfterPatch;
  now: () => Date;
  statementTimeoutMs: number;
}): Required<Pick<RunHandlers, 'patch_execute' | 'patch_rollback'>> {
  const { db, connections, now } = deps;

  async function execute(run: Run, context: RunContext): Promise<Record<string, unknown>> {
    const patch = run.subject_id ? await findPatchById(db, run.subject_id) : undefined;
    if (!patch) throw notFound('Patch');
    const connection = await connections.findById(patch.connection_id);
    if (!connection) throw notFound('Connection');
    const params = run.params as { expected_rows?: number; allow_irreversible?: boolean };
    const expected = params.expected_rows;
    if (
      !(await movePatchStatus(db, patch.id, ['draft', 'failed'], { status: 'executing', updated_at: now() }))
    )
      throw conflict(`The patch is ${patch.status} and cannot be executed`);
    const dialect = connection.dialect;
    const fail = async (message: string, result: Record<string, unknown>): Promise<never> => {
      await updatePatch(db, patch.id, { status: 'failed', updated_at: now() });
      throw new RunFailed(message, result);
    };
    await context.progress(0, patch.statements.length);

    let statements: (StoredPatchStatement & { columns: string[] })[] = [];
    const images = () =>
      statements.flatMap((s) =>
        imagesOf(dialect, s).map((image) => backupTable(dialect, run.id, s.index, image)),
      );
    let affected: number[];
    let imaged: number[];
    let xid: string | null;
    try {
      ({ affected, imaged, xid } = await connections.withTarget(connection, async (handle) => {
        statements = refreshStatements(
          patch.statements,
          await handle.introspect(),
          params.allow_irreversible === true,
        );
        const target = { dialect, flavor: handle.flavor, runId: run.id };
        // MySQL commits DDL by itself: the empty images are created before the data transaction.
        await handle.transaction(
          async (tx) => {
            if (dialect === 'postgresql' && images().length > 0)
              await tx.query(`CREATE SCHEMA IF NOT EXISTS "${PG_BACKUP_SCHEMA}"`);
            for (const s of statements)
              for (const image of imagesOf(dialect, s))
                await tx.query(createImageSql(dialect, backupTable(dialect, run.id, s.index, image), s));
          },
          { commit: true },
        );
        try {
          return await handle.transaction(
            async (tx) => {
              // The id every row this transaction writes carries as `xmin` (patch-images.ts).
              const xid =
                dialect === 'postgresql'
                  ? String((await tx.query('SELECT txid_current() % 4294967296 AS xid')).rows[0]!.xid)
                  : null;
              const counts = { affected: [] as number[], imaged: [] as number[], xid };
              for (const s of statements) {
                const done = await runWithImages(tx, target, s);
                counts.affected.push(done.affected);
                counts.imaged.push(done.imaged);
                await context.progress(s.index + 1, statements.length);
              }
              for (const s of statements)
                if (dialect === 'mysql' && s.kind !== 'delete' && s.key !== null)
                  await finishAfterImage(tx, run.id, s);
              const total = counts.affected.reduce((a, b) => a + b, 0);
              if (expected !== undefined && total !== expected)
                throw new ExpectedRowsMismatch(
                  `The statements affect ${total} rows, not the ${expected} expected: nothing was changed`,
                  counts.affected,
                );
              return counts;
            },
            { commit: true, statementTimeoutMs: deps.statementTimeoutMs },
          );
        } catch (error) {
          await handle.transaction((tx) => dropTables(tx, images()), { commit: true }).catch(() => {});
          throw error;
        }
      }));
    } catch (error) {
      if (error instanceof ExpectedRowsMismatch)
        return fail(error.message, {
          affected_rows: error.affected,
          expected_rows: expected,
          changed: false,
        });
      if (error instanceof PatchNoLongerFits)
        return fail(`${error.message}: nothing was changed`, { changed: false });
      if (error instanceof TargetError || error instanceof AppError)
        return fail(`The patch failed and was rolled back: ${error.message}`, { changed: false });
      await updatePatch(db, patch.id, { status: 'failed', updated_at: now() });
      throw error;
    }
    const at = now();
    await updatePatch(db, patch.id, {
      status: 'executed',
      statements: JSON.stringify(statements),
      execute_xid: xid,
      executed_at: at,
      execute_run_id: run.id,
      updated_at: at,
    });
    const snapshot = await deps.snapshotAfterPatch(connection.id, run.id);
    return {
      affected_rows: affected,
      total_affected_rows: affected.reduce((a, b) => a + b, 0),
      backups: statements.map((s, i) => ({
        index: s.index,
        tables: imagesOf(dialect, s).map((image) => backupTable(dialect, run.id, s.index, image)),
        rows: imaged[i] ?? 0,
        reversible: s.reversible,
      })),
      snapshot_id: snapshot?.id ?? null,
    };
  }

  /**
   * Restores an executed patch in one transaction, statements in reverse order, by their keys.
   * Rows changed since the patch are conflicts: without `force` nothing is restored and the run
   * fails listing them; with it they are overwritten.
   */
  async function rollback(run: Run, context: RunContext): Promise<Record<string, unknown>> {
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
    const force = (run.params as { force?: boolean }).force === true;
    if (!(await movePatchStatus(db, patch.id, ['executed'], { status: 'executing', updated_at: now() })))
      throw conflict(`The patch is ${patch.status} and cannot be rolled back`);
    const dialect = connection.dialect;
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
        const plans = reversed.map((s) =>
          planFor(dialect, model, executeRun, s, {
            xid: patch.execute_xid,
            force,
            laterDeletes: patch.statements
              .filter((d) => d.kind === 'delete' && d.index > s.index && d.table === s.table)
              .map((d) => backupTable(dialect, executeRun, d.index)),
          }),
        );
        return handle.transaction(
          async (tx) => {
            // Fresh images have no statistics: without them the planner hashes the whole table.
            if (dialect === 'postgresql')
              for (const image of new Set(plans.flatMap((p) => p.images))) await tx.query(`ANALYZE ${image}`);
            const conflicts: RollbackConflict[] = [];
            for (const plan of plans) {
              const rows = (await tx.query(plan.conflicts)).rows;
              if (rows.length > 0) conflicts.push({ index: plan.index, table: plan.table, keys: rows });
            }
            if (conflicts.length > 0 && !force) throw new RollbackConflicts(conflicts);
            const restored: RestoredStatement[] = [];
            const warnings: string[] = [];
            for (const [done, plan] of plans.entries()) {
              const triggers =
                dialect === 'postgresql'
                  ? await pauseTriggers(tx, plan.tableSql)
                  : ({ state: 'none' } as const);
              if (triggers.state === 'firing')
                warnings.push(`The triggers of ${plan.table} fired during the restore: ${triggers.reason}`);
              let rows = 0;
              for (const sql of plan.restore) rows += (await tx.query(sql)).affectedRows;
              if (triggers.state === 'paused') await triggers.resume();
              // Without a trigger firing the restore is exact by construction; with one, it is checked.
              const fired = triggers.state === 'firing' || (dialect === 'mysql' && plan.hasTriggers);
              const unequal = fired ? Number((await tx.query(plan.verify)).rows[0]?.n ?? 0) : 0;
              if (unequal > 0)
                warnings.push(
                  `Statement ${plan.index}: ${unequal} rows of ${plan.table} are not as before the patch after the restore (a trigger?)`,
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
          `${error.conflicts.reduce((n, c) => n + c.keys.length, 0)} rows changed since the patch; nothing was restored (force: true overwrites them)`,
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
  }

  return { patch_execute: execute, patch_rollback: rollback };
}

/**
 * The restore plan of one executed statement: by the key decided at execute, over the columns its
 * images hold that the table still has (a column added since is left as it is).
 */
function planFor(
  dialect: 'postgresql' | 'mysql',
  model: SchemaModel,
  runId: string,
  statement: StoredPatchStatement,
  options: { xid: string | null; force: boolean; laterDeletes: string[] },
): RestorePlan & { hasTriggers: boolean } {
  const table = findTable(model, statement.table);
  if (!table)
    throw new PatchNoLongerFits(`Statement ${statement.index}: table ${statement.table} no longer exists`);
  if (!statement.reversible || !statement.key)
    throw new PatchNoLongerFits(
      `Statement ${statement.index} cannot be rolled back: ${statement.irreversible_reason ?? 'it was executed without a rollback key'}`,
    );
  if (dialect === 'postgresql' && options.xid === null)
    throw new PatchNoLongerFits(
      'The patch was executed before dbops recorded its transaction: it cannot be rolled back',
    );
  const now = new Set(writableColumns(table));
  const columns = (statement.columns ?? [...now]).filter((c) => now.has(c));
  const missing = statement.key.filter((c) => !now.has(c));
  if (missing.length > 0)
    throw new PatchNoLongerFits(
      `Statement ${statement.index}: key column ${missing.join(', ')} of ${statement.table} no longer exists`,
    );
  const hasTriggers = model.unmanaged.some(
    (u) => u.kind === 'trigger' && u.table === table.name && u.schema === table.schema,
  );
  const fixed = table.columns.filter((c) => c.identity === 'always').map((c) => c.name);
  return { ...restorePlan(dialect, runId, statement, { ...options, columns, fixed }), hasTriggers };
}

async function dropTables(tx: TargetTransaction, tables: string[]): Promise<void> {
  for (const table of tables) await tx.query(`DROP TABLE IF EXISTS ${table}`);
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

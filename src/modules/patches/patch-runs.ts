// The run handler of `patch_execute` (API §9), for the job worker. Before-images first: the rows
// each UPDATE and DELETE will touch are copied into backup tables (PostgreSQL: schema
// `dbops_backup`, tables `<run id>_<statement>`; MySQL: `_dbops_bak_<run id>_<statement>` beside
// the data, since MySQL has no second schema to write to). The empty backup tables are created in
// a first transaction (MySQL DDL commits by itself); then one transaction copies the rows, runs
// every statement and, when `expected_rows` was given and the total differs, rolls everything
// back: nothing changed, the run fails, the backup tables are dropped. After a commit the patch is
// `executed` and a snapshot of the connection is taken.
import type { TargetTransaction } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import type { DialectName, SchemaModel } from '../../engine/schema/model.ts';
import { AppError, conflict, notFound } from '../../http/errors.ts';
import type { Db } from '../../store/db.ts';
import type { Run, StoredPatchStatement } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { type RunContext, RunFailed, type RunHandlers } from '../runs/runs.executor.ts';
import type { SnapshotAfterPatch } from '../snapshots/snapshot-after-patch.ts';
import { columnsOf, primaryKeyOf } from './patch-dry-run.ts';
import { findPatchById, movePatchStatus, updatePatch } from './patches.repo.ts';

export const PG_BACKUP_SCHEMA = 'dbops_backup';

/**
 * The quoted backup table of statement `index` of run `runId`: the rows as they were before it
 * (`before`), or, for an UPDATE, the same rows right after it (`after`, what a rollback compares
 * with to find rows changed since).
 */
export function backupTable(
  dialect: DialectName,
  runId: string,
  index: number,
  image: 'before' | 'after' = 'before',
): string {
  const id = `${runId.replaceAll('-', '')}_${index}${image === 'after' ? '_after' : ''}`;
  return dialect === 'mysql' ? `\`_dbops_bak_${id}\`` : `"${PG_BACKUP_SCHEMA}"."${id}"`;
}

export function quoteName(dialect: DialectName, name: string): string {
  return dialect === 'mysql' ? `\`${name.replaceAll('`', '``')}\`` : `"${name.replaceAll('"', '""')}"`;
}

class ExpectedRowsMismatch extends Error {
  readonly affected: number[];
  constructor(message: string, affected: number[]) {
    super(message);
    this.affected = affected;
  }
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
    const expected = (run.params as { expected_rows?: number }).expected_rows;
    if (
      !(await movePatchStatus(db, patch.id, ['draft', 'failed'], { status: 'executing', updated_at: now() }))
    )
      throw conflict(`The patch is ${patch.status} and cannot be executed`);
    const statements = patch.statements;
    const backed = statements.filter((s) => s.kind !== 'insert');
    const dialect = connection.dialect;
    const fail = async (message: string, result: Record<string, unknown>): Promise<never> => {
      await updatePatch(db, patch.id, { status: 'failed', updated_at: now() });
      throw new RunFailed(message, result);
    };
    await context.progress(0, statements.length);

    const dropBackups = (tx: TargetTransaction) =>
      Promise.all(
        backed.map((s) => tx.query(`DROP TABLE IF EXISTS ${backupTable(dialect, run.id, s.index)}`)),
      );

    let affected: number[];
    let backedUp: Record<number, number>;
    try {
      ({ affected, backedUp } = await connections.withTarget(connection, async (handle) => {
        const model = await handle.introspect();
        await handle.transaction(
          async (tx) => {
            if (dialect === 'postgresql' && backed.length > 0)
              await tx.query(`CREATE SCHEMA IF NOT EXISTS "${PG_BACKUP_SCHEMA}"`);
            for (const s of backed) {
              await tx.query(createBackup(dialect, backupTable(dialect, run.id, s.index), s));
              if (s.kind === 'update')
                await tx.query(createBackup(dialect, backupTable(dialect, run.id, s.index, 'after'), s));
            }
          },
          { commit: true },
        );
        try {
          return await handle.transaction(
            async (tx) => {
              const counts: number[] = [];
              const copies: Record<number, number> = {};
              for (const s of statements) {
                if (s.kind !== 'insert')
                  copies[s.index] = (
                    await tx.query(
                      `INSERT INTO ${backupTable(dialect, run.id, s.index)} SELECT * FROM ${s.target_sql} WHERE ${s.where_sql ?? '1 = 1'}`,
                    )
                  ).affectedRows;
                counts.push((await tx.query(s.sql)).affectedRows);
                const key = primaryKeyOf(model, s.table);
                if (s.kind === 'update' && key) {
                  const columns = key.map((c) => quoteName(dialect, c));
                  const tuple = (alias: string) => `(${columns.map((c) => `${alias}.${c}`).join(', ')})`;
                  await tx.query(
                    `INSERT INTO ${backupTable(dialect, run.id, s.index, 'after')} SELECT t.* FROM ${s.table_sql} t ` +
                      `WHERE ${tuple('t')} IN (SELECT ${tuple('b').slice(1, -1)} FROM ${backupTable(dialect, run.id, s.index)} b)`,
                  );
                }
              }
              const total = counts.reduce((a, b) => a + b, 0);
              if (expected !== undefined && total !== expected)
                throw new ExpectedRowsMismatch(
                  `The statements affect ${total} rows, not the ${expected} expected: nothing was changed`,
                  counts,
                );
              return { affected: counts, backedUp: copies };
            },
            { commit: true, statementTimeoutMs: deps.statementTimeoutMs },
          );
        } catch (error) {
          await handle.transaction(dropBackups, { commit: true }).catch(() => {});
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
      if (error instanceof TargetError || error instanceof AppError)
        return fail(`The patch failed and was rolled back: ${error.message}`, { changed: false });
      await updatePatch(db, patch.id, { status: 'failed', updated_at: now() });
      throw error;
    }
    const at = now();
    await updatePatch(db, patch.id, {
      status: 'executed',
      executed_at: at,
      execute_run_id: run.id,
      updated_at: at,
    });
    await context.progress(statements.length, statements.length);
    const snapshot = await deps.snapshotAfterPatch(connection.id, run.id);
    const total = affected.reduce((a, b) => a + b, 0);
    return {
      affected_rows: affected,
      total_affected_rows: total,
      backups: backed.map((s) => ({
        index: s.index,
        table: backupTable(dialect, run.id, s.index),
        rows: backedUp[s.index] ?? 0,
      })),
      snapshot_id: snapshot?.id ?? null,
    };
  }

  /**
   * Restores the before-images of an executed patch in one transaction, statements in reverse
   * order, by primary key. Rows changed since the patch (an updated row that no longer equals its
   * after-image, a deleted row that exists again) are conflicts: without `force` nothing is
   * restored and the run fails listing them; with it they are overwritten.
   */
  async function rollback(run: Run, context: RunContext): Promise<Record<string, unknown>> {
    const patch = run.subject_id ? await findPatchById(db, run.subject_id) : undefined;
    if (!patch) throw notFound('Patch');
    const connection = await connections.findById(patch.connection_id);
    if (!connection) throw notFound('Connection');
    const executeRun = patch.execute_run_id;
    if (executeRun === null) throw conflict('The patch has no before-images to restore');
    const force = (run.params as { force?: boolean }).force === true;
    if (!(await movePatchStatus(db, patch.id, ['executed'], { status: 'executing', updated_at: now() })))
      throw conflict(`The patch is ${patch.status} and cannot be rolled back`);
    const dialect = connection.dialect;
    const backed = patch.statements.filter((s) => s.kind !== 'insert').reverse();
    await context.progress(0, backed.length);
    const back = async (message: string, result: Record<string, unknown>): Promise<never> => {
      await updatePatch(db, patch.id, { status: 'executed', updated_at: now() });
      throw new RunFailed(message, result);
    };
    let outcome: { restored: { index: number; rows: number }[]; conflicts: RollbackConflict[] };
    try {
      outcome = await connections.withTarget(connection, async (handle) => {
        const model = await handle.introspect();
        return handle.transaction(
          async (tx) => {
            const plans = backed.map((s) => restorePlan(dialect, model, executeRun, s));
            const conflicts: RollbackConflict[] = [];
            for (const plan of plans) {
              const rows = (await tx.query(plan.conflicts)).rows;
              if (rows.length > 0) conflicts.push({ index: plan.index, table: plan.table, keys: rows });
            }
            if (conflicts.length > 0 && !force) throw new RollbackConflicts(conflicts);
            const restored: { index: number; rows: number }[] = [];
            for (const plan of plans) {
              let rows = 0;
              for (const sql of plan.restore) rows += (await tx.query(sql)).affectedRows;
              restored.push({ index: plan.index, rows });
            }
            return { restored, conflicts };
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
      if (error instanceof RollbackImpossible) return back(error.message, { restored: false });
      if (error instanceof TargetError || error instanceof AppError)
        return back(`The rollback failed and nothing was restored: ${error.message}`, { restored: false });
      await updatePatch(db, patch.id, { status: 'executed', updated_at: now() });
      throw error;
    }
    await updatePatch(db, patch.id, { status: 'rolled_back', updated_at: now() });
    await context.progress(backed.length, backed.length);
    return { restored: outcome.restored, conflicts: outcome.conflicts, forced: force };
  }

  return { patch_execute: execute, patch_rollback: rollback };
}

interface RollbackConflict {
  index: number;
  table: string;
  /** The primary keys of the rows changed since the patch (at most 100 per statement). */
  keys: Record<string, unknown>[];
}

class RollbackConflicts extends Error {
  readonly conflicts: RollbackConflict[];
  constructor(conflicts: RollbackConflict[]) {
    super('rows changed since the patch');
    this.conflicts = conflicts;
  }
}

class RollbackImpossible extends Error {}

/** The conflict query and the restoring statements of one statement of the patch. */
function restorePlan(
  dialect: DialectName,
  model: SchemaModel,
  runId: string,
  statement: StoredPatchStatement,
): { index: number; table: string; conflicts: string; restore: string[] } {
  const key = primaryKeyOf(model, statement.table);
  const columns = columnsOf(model, statement.table);
  if (!key || !columns)
    throw new RollbackImpossible(
      `Statement ${statement.index}: ${statement.table} has no primary key, so its rows cannot be restored`,
    );
  const q = (name: string) => quoteName(dialect, name);
  const table = statement.table_sql;
  const before = backupTable(dialect, runId, statement.index);
  const keyEq = key.map((c) => `t.${q(c)} = b.${q(c)}`).join(' AND ');
  const keyList = key.map((c) => `b.${q(c)}`).join(', ');
  const same = (c: string) =>
    dialect === 'mysql' ? `t.${q(c)} <=> b.${q(c)}` : `t.${q(c)}::text IS NOT DISTINCT FROM b.${q(c)}::text`;
  const others = columns.filter((c) => !key.includes(c));
  const update =
    others.length === 0
      ? null
      : dialect === 'mysql'
        ? `UPDATE ${table} t JOIN ${before} b ON ${keyEq} SET ${others.map((c) => `t.${q(c)} = b.${q(c)}`).join(', ')}`
        : `UPDATE ${table} AS t SET ${others.map((c) => `${q(c)} = b.${q(c)}`).join(', ')} FROM ${before} b WHERE ${keyEq}`;
  if (statement.kind === 'update') {
    const after = backupTable(dialect, runId, statement.index, 'after');
    return {
      index: statement.index,
      table: statement.table,
      conflicts:
        `SELECT ${keyList} FROM ${after} b LEFT JOIN ${table} t ON ${keyEq} ` +
        `WHERE t.${q(key[0]!)} IS NULL OR NOT (${columns.map(same).join(' AND ')}) LIMIT 100`,
      restore: update ? [update] : [],
    };
  }
  const list = columns.map(q).join(', ');
  const overriding = dialect === 'postgresql' ? ' OVERRIDING SYSTEM VALUE' : '';
  return {
    index: statement.index,
    table: statement.table,
    conflicts: `SELECT ${keyList} FROM ${before} b JOIN ${table} t ON ${keyEq} LIMIT 100`,
    restore: [
      ...(update ? [update] : []),
      `INSERT INTO ${table} (${list})${overriding} SELECT ${columns.map((c) => `b.${q(c)}`).join(', ')} ` +
        `FROM ${before} b WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE ${keyEq})`,
    ],
  };
}

function createBackup(dialect: DialectName, table: string, statement: StoredPatchStatement): string {
  return dialect === 'mysql'
    ? `CREATE TABLE ${table} LIKE ${statement.table_sql}`
    : `CREATE TABLE ${table} (LIKE ${statement.table_sql})`;
}

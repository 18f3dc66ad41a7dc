// The run handler of `patch_execute` (docs/contract.md §9), for the job worker. It decides each statement's
// rollback key again on the schema as it is now, creates the empty images (patch-images.ts) in a
// first transaction (MySQL DDL commits by itself), then one transaction runs every statement
// writing its images and, when `expected_rows` was given and the total differs, rolls everything
// back: nothing changed, the run fails, the images are dropped. After a commit the patch is
// `executed` and a snapshot of the connection is taken.

import { AppError, conflict, notFound } from '../../core/errors.ts';
import { countOf } from '../../core/plural.ts';
import type { TargetTransaction } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import { findTable, keyOnModel } from '../../engine/patch/rollback-key.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Run, StoredPatchStatement } from '../../store/tables.ts';
import { type RunContext, RunFailed } from '../runs/run-handler.ts';
import { runParams } from '../runs/run-kinds.ts';
import { unsuccessfulRunIds } from '../runs/runs.repo.ts';
import {
  backupTable,
  backupTablesOf,
  createImageSql,
  finishAfterImage,
  imagesOf,
  needsFinishedAfterImage,
  runWithImages,
  writableColumns,
} from './patch-images.ts';
import { rangedUpdate, runInKeyRanges } from './patch-key-ranges.ts';
import {
  assertSchemaAsRequested,
  PatchExecuteParams,
  PatchNoLongerFits,
  type PatchRunDeps,
} from './patch-run-deps.ts';
import { liveRefusal } from './patch-safety.ts';
import { findPatchById, movePatchStatus, updatePatch } from './patches.repo.ts';

class ExpectedRowsMismatch extends Error {
  readonly affected: number[];
  constructor(message: string, affected: number[]) {
    super(message);
    this.affected = affected;
  }
}

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
      throw new PatchNoLongerFits(
        `Statement ${statement.index + 1}: table ${statement.table} does not exist`,
      );
    const { table, verdict } = keyed;
    if (!verdict.reversible && !allowIrreversible)
      throw new PatchNoLongerFits(
        `Statement ${statement.index + 1} cannot be rolled back (${verdict.reason}); send allow_irreversible: true to execute it anyway`,
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

export function createPatchExecute(deps: PatchRunDeps) {
  const { db, connections, now } = deps;

  return async function execute(run: Run, context: RunContext): Promise<Record<string, unknown>> {
    const patch = run.subject_id ? await findPatchById(db, run.subject_id) : undefined;
    if (!patch) throw notFound('Patch');
    const connection = await connections.findById(patch.connection_id);
    if (!connection) throw notFound('Connection');
    const params = runParams(PatchExecuteParams, run);
    const expected = params.expected_rows;
    if (
      !(await movePatchStatus(db, patch.id, ['draft', 'failed'], { status: 'executing', updated_at: now() }))
    )
      throw conflict(`The patch is ${patch.status} and cannot be executed`);
    const sql = connections.dialectOf(connection);
    const fail = async (message: string, result: Record<string, unknown>): Promise<never> => {
      await updatePatch(db, patch.id, { status: 'failed', updated_at: now() });
      throw new RunFailed(message, result);
    };
    await context.progress(0, patch.statements.length);

    let statements: (StoredPatchStatement & { columns: string[] })[] = [];
    const images = () =>
      statements.flatMap((s) => imagesOf(sql, s).map((image) => backupTable(sql, run.id, s.index, image)));
    let affected: number[];
    let imaged: number[];
    let xid: string | null;
    try {
      ({ affected, imaged, xid } = await connections.withTarget(connection, async (handle) => {
        const model = await handle.introspect();
        assertSchemaAsRequested(params, model);
        // The engines and the code around the tables may have changed since the patch was saved.
        const unsafe = await liveRefusal(handle, patch.statements, model);
        if (unsafe) throw new PatchNoLongerFits(unsafe.message);
        statements = refreshStatements(patch.statements, model, params.allow_irreversible === true);
        const target = { sql, flavor: handle.flavor, runId: run.id };
        const lastIndex = statements.at(-1)?.index;
        const ranged = new Map(
          statements.flatMap((s) => {
            const update = rangedUpdate(sql, s, findTable(model, s.table)!, s.index === lastIndex);
            return update === null ? [] : [[s.index, update] as const];
          }),
        );
        // DDL may commit by itself (MySQL): the empty images are created before the data transaction.
        await handle.transaction(
          async (tx) => {
            // An earlier execution that was interrupted (its process killed) may have left images.
            for (const earlier of await unsuccessfulRunIds(db, 'patch_execute', patch.id, run.id))
              await dropTables(tx, backupTablesOf(sql, patch, earlier));
            if (images().length > 0) for (const setup of sql.ownTablesSetup()) await tx.query(setup);
            for (const s of statements)
              for (const image of imagesOf(sql, s))
                for (const create of createImageSql(
                  sql,
                  backupTable(sql, run.id, s.index, image),
                  s,
                  findTable(model, s.table)!,
                ))
                  await tx.query(create);
          },
          { commit: true },
        );
        try {
          return await handle.transaction(
            async (tx) => {
              // The version every row this transaction writes carries (patch-images.ts).
              const versions = sql.capabilities.rowVersions;
              const xid =
                versions === null ? null : String((await tx.query(versions.currentSql)).rows[0]!.version);
              const counts = { affected: [] as number[], imaged: [] as number[], xid };
              // The statements whose after-image their key ranges already wrote (patch-key-ranges.ts).
              const afterImaged = new Set<number>();
              for (const s of statements) {
                const ranges = ranged.get(s.index);
                const inRanges = ranges ? await runInKeyRanges(tx, target, s, ranges) : null;
                if (inRanges && ranges?.afterImageByRange) afterImaged.add(s.index);
                const done = inRanges ?? (await runWithImages(tx, target, s));
                counts.affected.push(done.affected);
                counts.imaged.push(done.imaged);
                await context.progress(s.index + 1, statements.length);
              }
              for (const s of statements)
                if (needsFinishedAfterImage(sql, s) && !afterImaged.has(s.index))
                  await finishAfterImage(tx, sql, run.id, s);
              const total = counts.affected.reduce((a, b) => a + b, 0);
              if (expected !== undefined && total !== expected)
                throw new ExpectedRowsMismatch(
                  `The statements affect ${countOf(total, 'row')}, not the ${expected} expected: nothing was changed`,
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
        tables: imagesOf(sql, s).map((image) => backupTable(sql, run.id, s.index, image)),
        rows: imaged[i] ?? 0,
        reversible: s.reversible,
      })),
      snapshot_id: snapshot?.id ?? null,
    };
  };
}

async function dropTables(tx: TargetTransaction, tables: string[]): Promise<void> {
  for (const table of tables) await tx.query(`DROP TABLE IF EXISTS ${table}`);
}

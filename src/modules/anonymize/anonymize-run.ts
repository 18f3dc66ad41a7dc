// The run handler of `anonymize_run` (docs/contract.md §9.2): anonymises the config's connection in place. Each
// table group of the run plan (engine/anonymize/run-plan.ts) is rewritten in one transaction of the
// target: its tables are locked against writes (dialects/write-lock.ts), then, table by table, streamed out through the row
// pipeline, transformed batch by batch on worker threads (transform-pool.ts: per-row rules, then
// shuffles within the batch), and written back: reloaded where the dialect can and nothing tells a
// reload from an UPDATE (in-place-reload.ts: copied, emptied, streamed back into the table), else
// streamed into a session-private staging table and written back by one set-based
// UPDATE … FROM the staging table joined on the plan's key (never row by row). The foreign keys the
// group lists are set aside as the dialect says (RowFormat.foreignKeyLoad: PostgreSQL drops them and
// adds them back NOT VALID then validates them inside the transaction; MySQL turns checking off for
// the session and runs an orphan query per key before committing), so each group ends untouched or
// fully anonymised with its keys valid. Progress is in rows; a cancellation stops at a batch
// boundary, rolling the group back. The run reports the tables done as it goes, and the id of each
// group's transaction just before its COMMIT, so that a run whose process dies is told by
// anonymize-interrupted.ts which tables it anonymised, even when it died during the COMMIT.
import { type Static, Type } from 'typebox';
import { AppError, notFound } from '../../core/errors.ts';
import type { MigrationDialect, RowSession, TableReload } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import { putForeignKeysBack } from '../../dialects/foreign-keys-back.ts';
import { qualifiedTable } from '../../dialects/rows.ts';
import { writeLocks } from '../../dialects/write-lock.ts';
import { checkConfigRules } from '../../engine/anonymize/config-check.ts';
import { planRun, type TableGroup } from '../../engine/anonymize/run-plan.ts';
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import { tapBatches } from '../../engine/rows/transform.ts';
import type { ValueKind } from '../../engine/rows/value-kind.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import { type SchemaModel, type TableModel, tableKey } from '../../engine/schema/model.ts';
import { Uuid } from '../../http/schemas.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { RunCancelled, type RunContext, RunFailed } from '../runs/run-handler.ts';
import { runParams } from '../runs/run-kinds.ts';
import { openTransactionId } from '../runs/transaction-outcome.ts';
import { findConfigById } from './anonymize.repo.ts';
import { openKey } from './config-key.ts';
import { copySql, droppedKeyName, reloadBlockers } from './in-place-reload.ts';
import { planStage, type Stage, writeBack } from './in-place-write.ts';
import { createTransformPool, type TransformPool } from './transform-pool.ts';

/** Progress is written at most this often. */
const PROGRESS_EVERY_MS = 250;
const STAGE = 'dbops_anonymize_stage';

/** What the run works from (anonymize.service.ts). */
export const AnonymizeRunParams = Type.Object({
  config_id: Uuid,
  connection_id: Uuid,
  target_schema_hash: Type.String(),
});
export type AnonymizeRunParams = Static<typeof AnonymizeRunParams>;

export interface AnonymizeRunDeps {
  db: Db;
  box: SecretBox;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
}

export function createAnonymizeRun(deps: AnonymizeRunDeps) {
  const { db, box, connections } = deps;

  return async function anonymizeRun(run: Run, context: RunContext): Promise<Record<string, unknown>> {
    const params = runParams(AnonymizeRunParams, run);
    const config = await findConfigById(db, params.config_id);
    if (!config) throw new RunFailed('The anonymization config was deleted; nothing was written', {});
    const connection = await connections.findById(config.connection_id);
    if (!connection) throw notFound('Connection');

    const done: { table: string; rows: number }[] = [];
    let planned: string[] = [];
    const result = () => ({
      tables: done,
      rows_total: done.reduce((sum, t) => sum + t.rows, 0),
      tables_done: done.map((t) => t.table),
      tables_not_done: planned.filter((name) => !done.some((d) => d.table === name)),
    });

    return connections.withTarget(connection, async (handle) => {
      const dialect = handle.sql;
      let session: RowSession | undefined;
      let reader: RowSession | undefined;
      let pool: TransformPool | undefined;
      try {
        const model = await handle.introspect();
        if (schemaHash(model) !== params.target_schema_hash)
          throw new RunFailed(
            'The schema of the connection changed since the run was requested; nothing was written',
            {},
          );
        const { problems, checked } = checkConfigRules(model, config.rules);
        if (problems.length > 0)
          throw new RunFailed(`${problems.map((p) => p.msg).join('; ')}: nothing was written`, {});
        const plan = planRun(model, checked);
        if (plan.uniqueViolations.length > 0)
          throw new RunFailed(
            `${plan.uniqueViolations.map((v) => v.message).join('; ')}: nothing was written`,
            {},
          );
        planned = plan.groups.flatMap((g) => g.tables.map((t) => t.table));
        await context.report(result());
        pool = createTransformPool(plan, openKey(box, config.id, config.key_sealed));
        session = await handle.rowSession();
        reader = await handle.rowSession();
        const progress = { done: 0, total: 0, last: 0 };
        await context.progress(0, null);
        const open = session;
        // The group's tables and transaction, recorded before its COMMIT: what an interruption asks about.
        const committing = async (tables: { table: string; rows: number }[]) =>
          context.report({
            ...result(),
            committing: { tables, transaction: await openTransactionId(open, dialect) },
          });
        for (const group of plan.groups) {
          done.push(
            ...(await rewriteGroup(
              session,
              reader,
              dialect,
              model,
              group,
              pool,
              progress,
              context,
              committing,
            )),
          );
          await context.report(result());
        }
        await context.progress(progress.done, progress.done);
        return result();
      } catch (error) {
        if (error instanceof RunCancelled) throw new RunCancelled(result());
        if (error instanceof RunFailed) throw new RunFailed(error.message, { ...result(), ...error.result });
        if (error instanceof TargetError || error instanceof AppError)
          throw new RunFailed(
            `The anonymization failed${done.length > 0 ? ` after ${done.map((d) => d.table).join(', ')}` : ''}; ` +
              `the tables not done are untouched: ${error.message}`,
            result(),
          );
        throw error;
      } finally {
        await pool?.close();
        await reader?.close();
        await session?.close();
      }
    });
  };
}

/** One group in one transaction: every table of it anonymised, or (on any failure) none. */
async function rewriteGroup(
  session: RowSession,
  reader: RowSession,
  dialect: MigrationDialect,
  model: SchemaModel,
  group: TableGroup,
  pool: TransformPool,
  progress: { done: number; total: number; last: number },
  context: RunContext,
  committing: (tables: { table: string; rows: number }[]) => Promise<void>,
): Promise<{ table: string; rows: number }[]> {
  const q = (name: string) => dialect.quoteIdent(name);
  const qualified = (t: { schema: string | null; name: string }) => qualifiedTable(q, t);
  const tables = new Map(model.tables.map((t) => [tableKey(t), t]));
  const fkLoad = dialect.rows.foreignKeyLoad;
  const keys = group.foreignKeys.flatMap(({ table, name }) => {
    const owner = tables.get(table) as TableModel;
    const fk = owner.foreign_keys.find((k) => k.name === name);
    return fk ? [{ table: owner, fk }] : [];
  });
  const out: { table: string; rows: number }[] = [];
  if (fkLoad.kind === 'session' && keys.length > 0) await session.query(fkLoad.off);
  await session.query('BEGIN');
  try {
    // Writes are locked out of the group's tables until it commits (reads go on: dialects/write-lock.ts).
    const counts = new Map<string, number>();
    for (const planned of group.tables) {
      const table = tables.get(planned.table) as TableModel;
      let rows: Record<string, unknown>[] = [];
      for (const statement of writeLocks[dialect.name](qualified(table)))
        ({ rows } = await session.query(statement));
      counts.set(planned.table, Number((rows[0] as { n: unknown }).n));
    }
    progress.total += [...counts.values()].reduce((a, b) => a + b, 0);
    await context.progress(progress.done, progress.total);
    // Progress per batch as it passes into a table; where a cancellation stops the run: between
    // batches, the group rolls back.
    const counted = (batches: AsyncIterable<RowBatch>) =>
      tapBatches(batches, async (batch) => {
        progress.done += batch.rows;
        if (Date.now() - progress.last >= PROGRESS_EVERY_MS) {
          progress.last = Date.now();
          await context.progress(progress.done, Math.max(progress.total, progress.done));
        }
      });
    // Tables are reloaded (in-place-reload.ts) where the dialect can and nothing tells a reload
    // from an UPDATE of their rows; the others are updated from a stage.
    const reload = dialect.rows.tableReload;
    const dropped = new Set(
      fkLoad.kind === 'readd' ? keys.map((k) => droppedKeyName(tableKey(k.table), k.fk.name)) : [],
    );
    // Every table copied or streamed into a stage of its own first: dropping a key (PostgreSQL) locks
    // its tables against the reading session, so the keys go only once every row has been read.
    type Staged =
      | { kind: 'update'; table: TableModel; stage: Stage; rows: number }
      | { kind: 'reload'; table: TableModel; stage: string; columns: string[]; kinds: ValueKind[] };
    const staged: Staged[] = [];
    for (const [i, planned] of group.tables.entries()) {
      const table = tables.get(planned.table) as TableModel;
      const transformed = planned.columns.map((c) => c.column);
      const kindOf = (name: string) =>
        dialect.rows.valueKind((table.columns.find((c) => c.name === name) as { type: string }).type);
      if (reload && (await reloadBlockers(session, reload, table, dropped)).length === 0) {
        // Every column the table is loaded with (generated ones are computed again by the server).
        const columns = table.columns.filter((c) => !c.generated).map((c) => c.name);
        const stage = `${STAGE}_${i}`;
        await reader.query(copySql(dialect, stage, qualified(table), columns));
        staged.push({ kind: 'reload', table, stage, columns, kinds: columns.map(kindOf) });
        continue;
      }
      // Only what the write-back reads: the key (to find each row) and the transformed columns.
      // Streaming, transforming and staging the other columns too cost as much again on wide rows.
      const columns = table.columns
        .filter((c) => !c.generated && (planned.key.includes(c.name) || transformed.includes(c.name)))
        .map((c) => c.name);
      const kinds = columns.map(kindOf);
      const stage = planStage(
        dialect,
        { model: table, qualified: qualified(table) },
        columns,
        kinds,
        planned.key,
        transformed,
        `${STAGE}_${i}`,
      );
      await session.query(stage.createSql);
      // Read through a second session (the rows are locked by this one, not hidden from it) and
      // written into the stage as they come: the slowest end sets the pace, memory stays bounded.
      const written = await session.writeRows(
        { schema: null, name: stage.name, columns: stage.columns, kinds: stage.kinds },
        counted(
          pool.transform(
            planned.table,
            columns,
            stage.extras,
          )(reader.readRows({ schema: table.schema, name: table.name, columns, kinds })),
        ),
      );
      staged.push({ kind: 'update', table, stage, rows: written.rows });
      await context.progress(progress.done, Math.max(progress.total, progress.done));
    }

    if (fkLoad.kind === 'readd')
      for (const k of keys) await session.query(fkLoad.drop(qualified(k.table), k.fk.name));
    for (const [i, entry] of staged.entries()) {
      const planned = group.tables[i] as TableGroup['tables'][number];
      if (entry.kind === 'reload') {
        const target = qualified(entry.table);
        await session.query((reload as TableReload).truncateSql(target));
        // The copy streamed back from the reading session through the transforms into the emptied table.
        const written = await session.writeRows(
          { schema: entry.table.schema, name: entry.table.name, columns: entry.columns, kinds: entry.kinds },
          counted(
            pool.transform(
              planned.table,
              entry.columns,
            )(
              reader.readRows({
                schema: null,
                name: entry.stage,
                columns: entry.columns,
                kinds: entry.kinds,
              }),
            ),
          ),
        );
        await reader.query(`DROP TABLE ${q(entry.stage)}`);
        out.push({ table: planned.table, rows: written.rows });
        continue;
      }
      await writeBack(
        session,
        dialect,
        { model: entry.table, qualified: qualified(entry.table) },
        entry.stage,
        planned.key,
        planned.columns.map((c) => c.column),
        entry.rows,
      );
      out.push({ table: planned.table, rows: entry.rows });
    }

    const orphaned = await putForeignKeysBack(session, dialect, keys);
    if (orphaned)
      throw new RunFailed(
        `Foreign key ${orphaned.fk.name} of ${tableKey(orphaned.table)} would reference rows that do not exist; the group was rolled back`,
        {},
      );
    await committing(out);
    await session.query('COMMIT');
    return out;
  } catch (error) {
    await session.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    if (fkLoad.kind === 'session' && keys.length > 0) await session.query(fkLoad.on).catch(() => {});
  }
}

// Writing a seed plan into the target, in one transaction of one row session: every table's rows
// streamed through the row pipeline's writer (COPY FROM STDIN on PostgreSQL, LOAD DATA LOCAL
// INFILE on MySQL) in foreign-key order, the references broken at a cycle filled after by one
// set-based UPDATE per table (the values streamed into a session-private stage, joined on the
// primary key), the sequences moved past the written keys, and the foreign keys of the seeded
// tables set aside during the load and checked before the commit, as the dialect says
// (RowFormat.foreignKeyLoad: PostgreSQL drops them and adds them back NOT VALID, then validates;
// MySQL turns checking off for the session and runs one orphan query per key). A failure or a
// cancellation anywhere rolls everything back: the target keeps no row of a run that did not end.
import type { MigrationDialect, RowSession } from '../../dialects/dialect.ts';
import { putForeignKeysBack } from '../../dialects/foreign-keys-back.ts';
import { qualifiedTable } from '../../dialects/rows.ts';
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import type { TableModel } from '../../engine/schema/model.ts';
import type { PlannedTable, SeedPlan } from '../../engine/seed/seed-plan.ts';
import { deferredRows, poolKey, tableProducer } from '../../engine/seed/table-rows.ts';
import type { SeedInputs } from './seed-target.ts';

/** Rows per batch handed to the writer (also the unit of progress and cancellation). */
export const SEED_BATCH_ROWS = 5000;
const STAGE = 'dbops_seed_stage';

/** A foreign key of a seeded table would point at rows that do not exist (MySQL's check after the load). */
export class OrphanRows extends Error {}

export interface LoadProgress {
  /** Called after each batch; throws to stop (a cancellation). */
  batch(rows: number): Promise<void>;
}

async function* asAsync(batches: Iterable<RowBatch>, progress: LoadProgress): AsyncGenerator<RowBatch> {
  for (const batch of batches) {
    yield batch;
    await progress.batch(batch.rows);
  }
}

const sequenced = (table: TableModel, column: string) => {
  const c = table.columns.find((x) => x.name === column);
  return (
    c !== undefined && (c.identity !== null || c.auto_increment || (c.default ?? '').includes('nextval('))
  );
};

export async function loadPlan(input: {
  session: RowSession;
  dialect: MigrationDialect;
  plan: SeedPlan;
  seeded: SeedInputs;
  progress: LoadProgress;
  batchRows?: number;
  /** Called with what was written just before the COMMIT (what an interruption asks about). */
  committing?: (tables: { table: string; rows: number }[]) => Promise<void>;
}): Promise<{ table: string; rows: number }[]> {
  const { session, dialect, plan, seeded, progress } = input;
  const batchRows = input.batchRows ?? SEED_BATCH_ROWS;
  const q = (name: string) => dialect.quoteIdent(name);
  const qualified = (t: { schema: string | null; name: string }) => qualifiedTable(q, t);
  const fkLoad = dialect.rows.foreignKeyLoad;
  const keys = plan.tables.flatMap((p) => p.table.foreign_keys.map((fk) => ({ table: p.table, fk })));
  const done: { table: string; rows: number }[] = [];
  if (fkLoad.kind === 'session') await session.query(fkLoad.off);
  await session.query('BEGIN');
  try {
    if (fkLoad.kind === 'readd')
      for (const k of keys) await session.query(fkLoad.drop(qualified(k.table), k.fk.name));
    const producers = new Map<string, ReturnType<typeof tableProducer>>();
    for (const planned of plan.tables) {
      const producer = tableProducer(planned, seeded.inputs.get(planned.key)!);
      producers.set(planned.key, producer);
      const kinds = producer.columns.map((c) =>
        dialect.rows.valueKind(planned.table.columns.find((x) => x.name === c)!.type),
      );
      const written =
        planned.rows === 0 || producer.columns.length === 0
          ? { rows: 0 }
          : await session.writeRows(
              {
                schema: planned.table.schema,
                name: planned.table.name,
                columns: producer.columns,
                kinds,
                overridingSystemValue: true,
              },
              asAsync(producer.batches(batchRows), progress),
            );
      done.push({ table: planned.key, rows: written.rows });
    }
    for (const planned of plan.tables.filter((p) => p.references.some((r) => r.deferred) && p.rows > 0))
      await closeCycle(session, dialect, planned, seeded, batchRows, progress);
    for (const planned of plan.tables)
      for (const c of planned.columns.filter(
        (x) => x.generator.kind === 'key' && sequenced(planned.table, x.name),
      )) {
        const sync = dialect.rows.syncSequence(planned.table, c.name);
        if (sync) await session.query(sync.sql, sync.params);
      }
    const orphaned = await putForeignKeysBack(session, dialect, keys);
    if (orphaned)
      throw new OrphanRows(
        `Foreign key ${orphaned.fk.name} of ${qualified(orphaned.table)} would reference rows that do not exist`,
      );
    await input.committing?.(done);
    await session.query('COMMIT');
    return done;
  } catch (error) {
    await session.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    if (fkLoad.kind === 'session') await session.query(fkLoad.on).catch(() => {});
  }
}

/** Fills the references a cycle left empty: the values staged, then one UPDATE … FROM the stage. */
async function closeCycle(
  session: RowSession,
  dialect: MigrationDialect,
  planned: PlannedTable,
  seeded: SeedInputs,
  batchRows: number,
  progress: LoadProgress,
): Promise<void> {
  const q = (name: string) => dialect.quoteIdent(name);
  const table = qualifiedTable(q, planned.table);
  const deferred = planned.references.filter((r) => r.deferred);
  const fkColumns = deferred.flatMap((r) => r.fk.columns);
  const columns = [...planned.primaryKey, ...fkColumns];
  const stage = q(STAGE);
  // A stage of just these columns, without the table's constraints; the same SQL on both engines.
  await session.query(
    `CREATE TEMPORARY TABLE ${stage} AS SELECT ${columns.map(q).join(', ')} FROM ${table} WHERE 1 = 0`,
  );
  const inputs = seeded.inputs.get(planned.key)!;
  const keyPool = seeded.pools.get(poolKey(planned.key, planned.primaryKey))!;
  const kinds = columns.map((c) =>
    dialect.rows.valueKind(planned.table.columns.find((x) => x.name === c)!.type),
  );
  await session.writeRows(
    { schema: null, name: STAGE, columns, kinds },
    asAsync(
      deferredRows(planned, inputs, (row) => keyPool.value(keyPool.existing.length + row), batchRows),
      progress,
    ),
  );
  const on = planned.primaryKey.map((k) => `t.${q(k)} = s.${q(k)}`).join(' AND ');
  await session.query(dialect.updateFrom({ table, alias: 't' }, { table: stage, alias: 's' }, on, fkColumns));
  await session.query(`DROP ${dialect.capabilities.transactionalDdl ? '' : 'TEMPORARY '}TABLE ${stage}`);
}

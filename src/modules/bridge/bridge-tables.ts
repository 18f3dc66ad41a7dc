// The load of a bridge run's tables, parents first, one after the other: each read from the source
// (its filter and subset condition applied there), passed through its anonymization transforms if
// any, and loaded in one transaction of the target (bridge-load.ts). Progress is in rows, written
// at most every PROGRESS_EVERY_MS at batch boundaries, where a cancellation stops the run (the
// table being loaded rolls back); each table is recorded in the store as soon as it is committed,
// so a later run of the same request skips it.
//
// One after the other, not in parallel: on PostgreSQL a table's transaction takes its foreign keys
// among the copied tables off (and the keys of the tables that reference it), which locks both ends
// of each key until it commits, so two tables linked by a key cannot load at the same time anyway.
import type { RowSession } from '../../dialects/dialect.ts';
import type { PlannedTable } from '../../engine/bridge/copy-plan.ts';
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import { tapBatches } from '../../engine/rows/transform.ts';
import type { Db } from '../../store/db.ts';
import type { RunContext } from '../runs/run-handler.ts';
import { recordTableLoad } from './bridge.repo.ts';
import type { InFlightAnonymization } from './bridge-anonymize.ts';
import type { TargetLoader } from './bridge-load.ts';
import type { PhaseClock } from './bridge-phases.ts';

/** Progress is written at most this often: every batch would be a store write per megabyte. */
const PROGRESS_EVERY_MS = 250;

export async function loadTables(input: {
  db: Db;
  runId: string;
  now: () => Date;
  context: RunContext;
  clock: PhaseClock;
  source: RowSession;
  loader: TargetLoader;
  /** The tables to load, parents first. */
  todo: PlannedTable[];
  /** The condition of the rows to read from a table (its filter and subset), if any. */
  whereOf(table: PlannedTable): string | undefined;
  anonymization: InFlightAnonymization | undefined;
  /** The rows expected in all (progress): statistics and subset counts, so an estimate. */
  total: number;
  /** Each table as it is committed. */
  onLoaded(table: PlannedTable, written: { rows: number; method: string }): void;
}): Promise<void> {
  const { db, context, clock, todo } = input;
  let total = input.total;
  let rowsDone = 0;
  await context.progress(0, total);
  for (const table of todo) {
    const where = input.whereOf(table);
    let last = 0;
    const read = input.source.readRows({
      schema: table.source.schema,
      name: table.source.name,
      columns: table.columns,
      kinds: table.sourceKinds,
      ...(where !== undefined && { where }),
    });
    const anonymize = input.anonymization?.forTable(table.name, table.columns);
    const batches: AsyncIterable<RowBatch> = tapBatches(anonymize ? anonymize(read) : read, async (batch) => {
      rowsDone += batch.rows;
      if (rowsDone > total) total = rowsDone;
      if (Date.now() - last >= PROGRESS_EVERY_MS) {
        last = Date.now();
        await context.progress(rowsDone, total);
      }
    });
    const written = await clock.time(`load:${table.name}`, () => input.loader.load(table, batches));
    input.onLoaded(table, written);
    // The total was an estimate: once the last table is in, it is exact.
    if (table === todo.at(-1)) total = rowsDone;
    await clock.time('store_writes', async () => {
      await recordTableLoad(db, {
        runId: input.runId,
        table: table.name,
        rows: written.rows,
        carriedOver: false,
        at: input.now(),
      });
      await context.progress(rowsDone, total);
    });
  }
}

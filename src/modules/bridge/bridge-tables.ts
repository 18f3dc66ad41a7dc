// The load of a bridge run's tables: each read from the source (its filter and subset condition
// applied there), passed through its anonymization transforms if any, and loaded in one
// transaction of the target (bridge-load.ts). Progress is in rows, written at most every
// PROGRESS_EVERY_MS at batch boundaries, where a cancellation stops the run (the tables being
// loaded roll back); each table is recorded in the store as soon as it is committed, so a later
// run of the same request skips it.
//
// Tables load side by side on up to LOAD_LANES lanes, as pgcopydb does: a lane is a session on each
// side, so each table is one COPY stream out and one in, and the servers' work (parsing, writing,
// building the indexes after the rows) spreads over their cores. The foreign keys among the copied
// tables are out of the way for the whole load (TargetLoader.setAside), so a table's transaction
// locks no other table. The largest tables start first, so that the last to finish is not a big
// one started late. A subset reads through key tables that live in the first source session
// (temporary tables on PostgreSQL): its tables all load on that one lane.
import type { RowSession } from '../../dialects/dialect.ts';
import type { PlannedTable } from '../../engine/bridge/copy-plan.ts';
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import { tapBatches } from '../../engine/rows/transform.ts';
import type { Db } from '../../store/db.ts';
import { RunCancelled, type RunContext } from '../runs/run-handler.ts';
import { recordTableLoad } from './bridge.repo.ts';
import type { InFlightAnonymization } from './bridge-anonymize.ts';
import type { TargetLoader } from './bridge-load.ts';
import type { PhaseClock } from './bridge-phases.ts';

/** Progress is written at most this often: every batch would be a store write per megabyte. */
const PROGRESS_EVERY_MS = 250;

/**
 * Tables loading at once, at most. Each lane holds a session of each side's pool (TARGET_POOL_SIZE,
 * 3 by default): three lanes would leave nothing for the run's own other reads nor for requests.
 */
export const LOAD_LANES = 2;

/** A session on each side: one table at a time streams from one to the other. */
export interface Lane {
  source: RowSession;
  target: RowSession;
}

/** Stops the other lanes once the run is cancelled: their tables roll back at their next batch. */
class LaneStopped extends Error {}

export async function loadTables(input: {
  db: Db;
  runId: string;
  now: () => Date;
  context: RunContext;
  clock: PhaseClock;
  /** The run's own sessions: the first lane. */
  first: Lane;
  /** Opens another lane (closed by its `close`), or none when tables must load on the first alone. */
  openLane?: () => Promise<Lane & { close(): Promise<void> }>;
  loader: TargetLoader;
  /** The tables to load. */
  todo: PlannedTable[];
  /** The rows each table is expected to hold (statistics, subset counts): an estimate. */
  estimate(table: PlannedTable): number;
  /** The condition of the rows to read from a table (its filter and subset), if any. */
  whereOf(table: PlannedTable): string | undefined;
  anonymization: InFlightAnonymization | undefined;
  /** Each table as it is committed. */
  onLoaded(table: PlannedTable, written: { rows: number; method: string }): void;
}): Promise<void> {
  const { db, context, clock, todo } = input;
  let total = todo.reduce((sum, t) => sum + input.estimate(t), 0);
  let rowsDone = 0;
  let last = 0;
  let failed = false;
  await context.progress(0, total);
  await clock.time('keys_aside', () => input.loader.setAside(todo.map((t) => t.target!)));
  const queue = [...todo].sort((a, b) => input.estimate(b) - input.estimate(a));
  let left = todo.length;

  async function loadOne(table: PlannedTable, lane: Lane) {
    const where = input.whereOf(table);
    const read = lane.source.readRows({
      schema: table.source.schema,
      name: table.source.name,
      columns: table.columns,
      kinds: table.sourceKinds,
      ...(where !== undefined && { where }),
    });
    const anonymize = input.anonymization?.forTable(table.name, table.columns);
    const batches: AsyncIterable<RowBatch> = tapBatches(anonymize ? anonymize(read) : read, async (batch) => {
      if (failed) throw new LaneStopped();
      rowsDone += batch.rows;
      if (rowsDone > total) total = rowsDone;
      if (Date.now() - last >= PROGRESS_EVERY_MS) {
        last = Date.now();
        await context.progress(rowsDone, total);
      }
    });
    const written = await clock.time(`load:${table.name}`, () =>
      input.loader.load(table, batches, lane.target),
    );
    input.onLoaded(table, written);
    // The total was an estimate: once the last table is in, it is exact.
    if (--left === 0) total = rowsDone;
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
    // Its keys come back here, on this lane, as soon as the tables at their other end are in too.
    await clock.time('keys_back', () => input.loader.loaded(table, lane.target));
  }

  async function work(lane: Lane) {
    for (let table = queue.shift(); table !== undefined && !failed; table = queue.shift()) {
      try {
        await loadOne(table, lane);
      } catch (error) {
        // A cancellation (or a stopping process) stops every lane; a table that failed stops its
        // own, and the others load what is left, for a rerun to skip.
        if (error instanceof RunCancelled || error instanceof LaneStopped) failed = true;
        throw error;
      }
    }
  }

  /** A lane of its own sessions while tables are left; none when it cannot open (the others go on). */
  async function extraLane() {
    if (queue.length === 0 || !input.openLane) return;
    const lane = await input.openLane().catch(() => undefined);
    if (!lane) return;
    try {
      await input.loader.readyLane(lane.target);
      await work(lane);
    } finally {
      await lane.close();
    }
  }

  const extra = input.openLane ? Math.min(LOAD_LANES, todo.length) - 1 : 0;
  const outcomes = await Promise.allSettled([
    work(input.first),
    ...Array.from({ length: Math.max(0, extra) }, () => extraLane()),
  ]);
  // The first real failure, not a lane stopped because of it.
  const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
  const first = failures.find((f) => !(f instanceof LaneStopped)) ?? failures[0];
  if (first !== undefined) throw first;
}

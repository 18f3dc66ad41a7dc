// The store side of bridge runs: which runs write into a connection now (one at a time per target),
// and the tables each run finished loading (what a later run of the same request skips).
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';

/** A bridge run that is queued or running into `connectionId`, other than `exceptRunId`. */
export async function activeRunInto(db: Db, connectionId: string, exceptRunId?: string) {
  let query = db
    .selectFrom('runs')
    .select(['id', 'status'])
    .where('kind', '=', 'bridge_run')
    .where('status', 'in', ['queued', 'running'])
    .where(sql<string>`params->>'target_connection_id'`, '=', connectionId);
  if (exceptRunId !== undefined) query = query.where('id', '<>', exceptRunId);
  return query.executeTakeFirst();
}

/** Ids of the bridge runs queued or running now, on any connection. */
export async function liveBridgeRunIds(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('runs')
    .select('id')
    .where('kind', '=', 'bridge_run')
    .where('status', 'in', ['queued', 'running'])
    .execute();
  return rows.map((r) => r.id);
}

export async function recordTableLoad(
  db: Db,
  load: { runId: string; table: string; rows: number; carriedOver: boolean; at: Date },
): Promise<void> {
  await db
    .insertInto('bridge_table_loads')
    .values({
      run_id: load.runId,
      table_name: load.table,
      rows: load.rows,
      carried_over: load.carriedOver,
      finished_at: load.at,
    })
    .onConflict((oc) => oc.columns(['run_id', 'table_name']).doNothing())
    .execute();
}

export async function tableLoadsOf(db: Db, runId: string): Promise<{ table: string; rows: number }[]> {
  const rows = await db
    .selectFrom('bridge_table_loads')
    .select(['table_name', 'rows'])
    .where('run_id', '=', runId)
    .orderBy('finished_at')
    .execute();
  return rows.map((r) => ({ table: r.table_name, rows: Number(r.rows) }));
}

/**
 * The tables the previous run of the same request (`subjectId`) finished, when that run failed or
 * was cancelled (a killed process's run is failed by the sweep); none when it succeeded.
 */
export async function tablesDoneBefore(
  db: Db,
  subjectId: string,
  run: { id: string; created_at: Date },
): Promise<Map<string, number>> {
  const previous = await db
    .selectFrom('runs')
    .select(['id', 'status'])
    .where('kind', '=', 'bridge_run')
    .where('subject_id', '=', subjectId)
    .where('id', '<>', run.id)
    .where('created_at', '<=', run.created_at)
    .where('status', 'in', ['succeeded', 'failed', 'cancelled'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!previous || previous.status === 'succeeded') return new Map();
  return new Map((await tableLoadsOf(db, previous.id)).map((l) => [l.table, l.rows]));
}

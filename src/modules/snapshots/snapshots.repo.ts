// Schema snapshots of connections. Lists leave schema_json out: it can be megabytes per row.
import type { Kysely } from 'kysely';
import type { Database, Snapshot } from '../../store/tables.ts';

type Executor = Kysely<Database>;

const SUMMARY = ['id', 'org_id', 'connection_id', 'taken_at', 'schema_hash', 'is_baseline'] as const;

export async function insertSnapshot(
  db: Executor,
  snapshot: Omit<Snapshot, 'schema_json'> & { schema_json: string },
): Promise<Snapshot> {
  return db.insertInto('snapshots').values(snapshot).returningAll().executeTakeFirstOrThrow();
}

/** The connection has no baseline afterwards (the partial unique index allows one at most). */
export async function clearBaseline(db: Executor, connectionId: string): Promise<void> {
  await db
    .updateTable('snapshots')
    .set({ is_baseline: false })
    .where('connection_id', '=', connectionId)
    .where('is_baseline', '=', true)
    .execute();
}

/** Makes an existing snapshot the connection's only baseline (acknowledging drift). */
export async function setBaseline(db: Executor, connectionId: string, snapshotId: string): Promise<void> {
  await clearBaseline(db, connectionId);
  await db
    .updateTable('snapshots')
    .set({ is_baseline: true })
    .where('id', '=', snapshotId)
    .where('connection_id', '=', connectionId)
    .execute();
}

export async function findSnapshot(db: Executor, orgId: string, id: string) {
  return db
    .selectFrom('snapshots')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findBaseline(db: Executor, connectionId: string) {
  return db
    .selectFrom('snapshots')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('is_baseline', '=', true)
    .executeTakeFirst();
}

/** Whether the connection has a baseline, without reading its schema (which can be megabytes). */
export async function hasBaseline(db: Executor, connectionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('snapshots')
    .select('id')
    .where('connection_id', '=', connectionId)
    .where('is_baseline', '=', true)
    .executeTakeFirst();
  return row !== undefined;
}

/** A connection's snapshots without their schema, newest first. */
export function snapshotsQuery(db: Executor, connectionId: string) {
  return db
    .selectFrom('snapshots')
    .select(SUMMARY)
    .where('connection_id', '=', connectionId)
    .orderBy('taken_at', 'desc')
    .orderBy('id', 'desc');
}

/**
 * Deletes up to `limit` snapshots taken before `before` that nothing needs: not a baseline, not
 * their connection's newest (drift compares with it), not named by a drift report (which would go
 * with it). Returns how many it deleted.
 */
export async function pruneSnapshots(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('snapshots')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('snapshots as s')
        .select('s.id')
        .where('s.taken_at', '<', before)
        .where('s.is_baseline', '=', false)
        .where((w) =>
          w.not(
            w.exists(
              w
                .selectFrom('drift_reports as r')
                .select('r.id')
                .where((r) =>
                  r.or([
                    r('r.baseline_snapshot_id', '=', r.ref('s.id')),
                    r('r.current_snapshot_id', '=', r.ref('s.id')),
                  ]),
                ),
            ),
          ),
        )
        .where((w) =>
          w.exists(
            w
              .selectFrom('snapshots as newer')
              .select('newer.id')
              .whereRef('newer.connection_id', '=', 's.connection_id')
              .whereRef('newer.taken_at', '>', 's.taken_at'),
          ),
        )
        .orderBy('s.taken_at')
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// Deletes the schema snapshots past SNAPSHOT_RETENTION_DAYS. Every drift check and every executed
// patch stores a whole schema model (megabytes for a large database), so without this the store
// grows by a snapshot per connection per day for ever. Kept whatever their age: a connection's
// baseline, its newest snapshot, and those a drift report compares (deleting them would take the
// report along). Daily, in batches, so that a first pass over years of snapshots stays short.
import type { Db } from '../../store/db.ts';
import type { Logger } from '../module.ts';
import { pruneSnapshots } from './snapshots.repo.ts';

export const SNAPSHOT_RETENTION_JOB = 'snapshot_retention';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Snapshots one statement deletes; a pass repeats it until fewer are left. */
const BATCH = 500;
/** Batches one pass runs at most; the rest waits for the next day. */
const MAX_BATCHES = 100;

export interface SnapshotRetentionDeps {
  db: Db;
  logger: Logger;
  /** SNAPSHOT_RETENTION_DAYS. */
  retentionDays: number;
  now?: () => Date;
}

/** One pass; returns how many snapshots it deleted. */
export function createSnapshotRetention({
  db,
  logger,
  retentionDays,
  now = () => new Date(),
}: SnapshotRetentionDeps) {
  return async (): Promise<{ deleted: number }> => {
    const before = new Date(now().getTime() - retentionDays * DAY_MS);
    let deleted = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const count = await pruneSnapshots(db, before, BATCH);
      deleted += count;
      if (count < BATCH) break;
    }
    logger.info(
      { job: SNAPSHOT_RETENTION_JOB, deleted, retention_days: retentionDays },
      'old snapshots deleted',
    );
    return { deleted };
  };
}

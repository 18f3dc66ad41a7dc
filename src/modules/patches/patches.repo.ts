// Store access for data patches.
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { Patch, PatchesTable, PatchStatus } from '../../store/tables.ts';

export function insertPatch(db: Db, row: Insertable<PatchesTable>): Promise<Patch> {
  return db.insertInto('patches').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findPatch(db: Db, orgId: string, id: string): Promise<Patch | undefined> {
  return db
    .selectFrom('patches')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Locks the row for the rest of the transaction. */
export function lockPatch(db: Db, id: string): Promise<Patch | undefined> {
  return db.selectFrom('patches').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function projectPatchesQuery(db: Db, projectId: string) {
  return db
    .selectFrom('patches')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

export function updatePatch(db: Db, id: string, changes: Updateable<PatchesTable>): Promise<Patch> {
  return db.updateTable('patches').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deletePatch(db: Db, id: string): Promise<void> {
  await db.deleteFrom('patches').where('id', '=', id).execute();
}

export function findPatchById(db: Db, id: string): Promise<Patch | undefined> {
  return db.selectFrom('patches').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Moves the status only from one of `from`; returns whether it moved. */
export async function movePatchStatus(
  db: Db,
  id: string,
  from: PatchStatus[],
  changes: Updateable<PatchesTable> & { status: PatchStatus },
): Promise<boolean> {
  const result = await db
    .updateTable('patches')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Statuses in which no run uses the execution's backup tables (failed: already dropped, harmless). */
const SETTLED_STATUSES: PatchStatus[] = ['executed', 'rolled_back', 'failed'];

/** Executed patches whose backup tables are kept although the execution is older than `executedBefore`. */
function backupsDueQuery(db: Db, executedBefore: Date) {
  return db
    .selectFrom('patches')
    .selectAll()
    .where('execute_run_id', 'is not', null)
    .where('backups_dropped_at', 'is', null)
    .where('executed_at', '<', executedBefore)
    .where('status', 'in', SETTLED_STATUSES);
}

/** Up to `limit` patches whose backups are due to be dropped, oldest execution first. */
export function patchesWithBackupsDue(db: Db, executedBefore: Date, limit: number): Promise<Patch[]> {
  return backupsDueQuery(db, executedBefore).orderBy('executed_at').orderBy('id').limit(limit).execute();
}

/** The patch when its backups are (still) due: not being rolled back, not dropped meanwhile. */
export function patchWithBackupsDue(db: Db, id: string, executedBefore: Date): Promise<Patch | undefined> {
  return backupsDueQuery(db, executedBefore).where('id', '=', id).executeTakeFirst();
}

/** Records that the backups are gone, once; undefined when it was already recorded (or deleted). */
export function markBackupsDropped(db: Db, id: string, at: Date): Promise<Patch | undefined> {
  return db
    .updateTable('patches')
    .set({ backups_dropped_at: at, updated_at: at })
    .where('id', '=', id)
    .where('backups_dropped_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** The executed patches of a connection whose backup tables are still in its database. */
export function patchesWithBackupsOf(db: Db, connectionId: string): Promise<Patch[]> {
  return db
    .selectFrom('patches')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('execute_run_id', 'is not', null)
    .where('backups_dropped_at', 'is', null)
    .execute();
}

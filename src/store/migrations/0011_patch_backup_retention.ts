// Backup retention of data patches: when the `backup_retention` job dropped the before- and
// after-image tables an execution left in the target database (after BACKUP_RETENTION_DAYS). Set,
// the patch can no longer be rolled back.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('patches').addColumn('backups_dropped_at', 'timestamptz').execute();
  // The job's daily question, "which executions still have backups, oldest first", answered from an
  // index that holds only those: executed patches whose backups are gone leave it for good.
  await db.schema
    .createIndex('patches_backups_kept')
    .on('patches')
    .column('executed_at')
    .where(sql.ref('execute_run_id'), 'is not', null)
    .where(sql.ref('backups_dropped_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('patches_backups_kept').execute();
  await db.schema.alterTable('patches').dropColumn('backups_dropped_at').execute();
}

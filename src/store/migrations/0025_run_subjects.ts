// Approvals and runs say what they are about (`subject`: the resource, its connections, a summary),
// so an approver decides on what they can read. And every run kind now names in its parameters the
// connections it touches, which the one gated-run path checks: runs of patches and migrations
// recorded before carry only their subject's id, so their connections are copied in here.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('runs').addColumn('subject', 'jsonb').execute();
  await db.schema.alterTable('approvals').addColumn('subject', 'jsonb').execute();
  // A subject runs one operation at a time: its run in flight is looked up on every request.
  await sql`
    CREATE INDEX runs_subject_in_flight ON runs (subject_id)
    WHERE status IN ('queued', 'awaiting_approval', 'running')
  `.execute(db);
  await sql`
    UPDATE runs SET params = runs.params || jsonb_build_object('connection_id', p.connection_id)
    FROM patches p
    WHERE runs.kind IN ('patch_execute', 'patch_rollback') AND p.id = runs.subject_id
  `.execute(db);
  await sql`
    UPDATE runs SET params = runs.params || jsonb_build_object(
      'source_connection_id', m.source_connection_id, 'target_connection_id', m.target_connection_id)
    FROM migrations m
    WHERE runs.kind IN ('migration_apply', 'migration_rollback') AND m.id = runs.subject_id
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('runs_subject_in_flight').execute();
  await db.schema.alterTable('approvals').dropColumn('subject').execute();
  await db.schema.alterTable('runs').dropColumn('subject').execute();
}

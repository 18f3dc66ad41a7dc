// Schema migrations get one state machine (src/modules/migrations/migration-states.ts): a rollback
// runs under its own status `rolling_back`; a `failed` migration remembers which operation failed
// (`failed_operation`), since a failed rollback allows only another rollback; and the backup tables
// its apply left in the target are recorded (`backup_tables`) until a rollback drops them.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table migrations drop constraint migrations_status_check`.execute(db);
  await sql`alter table migrations add constraint migrations_status_check check (status in
    ('draft', 'applying', 'applied', 'rolling_back', 'failed', 'rolled_back'))`.execute(db);
  await db.schema
    .alterTable('migrations')
    .addColumn('failed_operation', 'text', (c) => c.check(sql`failed_operation in ('apply', 'rollback')`))
    // [{name, …}]: the backup tables apply made that still exist, as this service last left them.
    .addColumn('backup_tables', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  // A migration failed before this: its latest run says which operation it was.
  await sql`update migrations m set failed_operation = case when (
      select r.kind from runs r where r.subject_id = m.id order by r.created_at desc, r.id desc limit 1
    ) = 'migration_rollback' then 'rollback' else 'apply' end
    where m.status = 'failed'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update migrations set status = 'applying' where status = 'rolling_back'`.execute(db);
  await db.schema
    .alterTable('migrations')
    .dropColumn('backup_tables')
    .dropColumn('failed_operation')
    .execute();
  await sql`alter table migrations drop constraint migrations_status_check`.execute(db);
  await sql`alter table migrations add constraint migrations_status_check check (status in
    ('draft', 'applying', 'applied', 'failed', 'rolled_back'))`.execute(db);
}

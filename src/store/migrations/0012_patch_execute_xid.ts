// The PostgreSQL transaction that executed a patch: every row it wrote carries that id as `xmin`
// until something else writes the row, so a rollback finds the rows changed since the patch by
// their `xmin` instead of comparing them with a copy of every updated row. Null on MySQL.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('patches').addColumn('execute_xid', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('patches').dropColumn('execute_xid').execute();
}

// The audit trail's own order. Entries written in one transaction share its time, and their random
// ids broke the tie at random: a decision could be listed after the approval it caused. `seq` is
// the order the store took them in; the audit export will need it too (in order, at least once).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('audit_log')
    .addColumn('seq', 'bigint', (column) => column.generatedAlwaysAsIdentity())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('seq').execute();
}

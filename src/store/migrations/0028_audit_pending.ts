// Audited writes of one organization no longer take turns until their commit (the chain's lock
// held from the entry's insert to the commit capped an organization at a few hundred a second). A
// change's transaction writes its entry here, without a lock; after the commit, one pass under the
// chain's lock takes the waiting entries of the organization in, in the order they were written,
// giving each its seq, prev_hash and hash, and moves them to audit_log in one statement
// (src/modules/audit/audit-append.ts). An entry committed here is never lost: if the process dies
// before its pass, the next pass of its organization (any process, any write, list, verify or
// export) takes it in.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_pending')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid')
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'uuid')
    .addColumn('actor_label', 'text')
    .addColumn('api_key_id', 'uuid')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('target_label', 'text')
    .addColumn('project_id', 'uuid')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    // The order the entries were written in: the order a pass chains them in.
    .addColumn('position', 'bigint', (c) => c.generatedAlwaysAsIdentity())
    .execute();
  await db.schema
    .createIndex('audit_pending_org')
    .on('audit_pending')
    .columns(['org_id', 'position'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_pending').execute();
}

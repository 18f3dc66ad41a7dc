// Drift reports (a connection's live schema differs from its baseline snapshot) and the outbox of
// e-mails written when no SMTP server is configured. One pending report per connection and schema
// hash at most: a partial unique index says so, so that a manual check racing the daily job cannot
// file the same drift twice.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('drift_reports')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('connection_id', 'uuid', (c) => c.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('baseline_snapshot_id', 'uuid', (c) =>
      c.notNull().references('snapshots.id').onDelete('cascade'),
    )
    .addColumn('current_snapshot_id', 'uuid', (c) =>
      c.notNull().references('snapshots.id').onDelete('cascade'),
    )
    // Copied from the current snapshot: what "the same drift again" is compared on.
    .addColumn('current_schema_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'acknowledged')`))
    .addColumn('severity', 'text', (c) =>
      c.notNull().check(sql`severity in ('critical', 'moderate', 'minor', 'cosmetic')`),
    )
    .addColumn('summary', 'jsonb', (c) => c.notNull())
    .addColumn('diff', 'jsonb', (c) => c.notNull())
    // none: nothing to tell (cosmetic only); pending: the e-mail is still to be sent; sent.
    .addColumn('alert_state', 'text', (c) =>
      c.notNull().check(sql`alert_state in ('none', 'pending', 'sent')`),
    )
    .addColumn('alert_sent_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('acknowledged_at', 'timestamptz')
    // No foreign key: a purged user's id stays in the records that name it, as in the audit log.
    .addColumn('acknowledged_by', 'uuid')
    .addColumn('comment', 'text')
    .execute();
  await db.schema
    .createIndex('drift_reports_one_pending_per_hash')
    .on('drift_reports')
    .columns(['connection_id', 'current_schema_hash'])
    .unique()
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  // The badges: open reports per project (projects) and per connection (connections).
  await db.schema
    .createIndex('drift_reports_project_status')
    .on('drift_reports')
    .columns(['project_id', 'status'])
    .execute();
  await db.schema
    .createIndex('drift_reports_connection_created')
    .on('drift_reports')
    .columns(['connection_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('drift_reports_org_created')
    .on('drift_reports')
    .columns(['org_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('drift_reports_alert_pending')
    .on('drift_reports')
    .column('created_at')
    .where(sql.ref('alert_state'), '=', 'pending')
    .execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('recipients', 'jsonb', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_created').on('outbox').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('outbox').execute();
  await db.schema.dropTable('drift_reports').execute();
}

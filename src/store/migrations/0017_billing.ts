// Subscriptions driven by payment-provider events, and the events already applied.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('billing_subscriptions')
    .addColumn('org_id', 'uuid', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('subscription_id', 'text')
    .addColumn('current_period_end', 'timestamptz')
    .addColumn('grace_until', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('billing_subscriptions_customer')
    .on('billing_subscriptions')
    .column('customer_id')
    .execute();
  await db.schema
    .createTable('billing_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('org_id', 'uuid')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('billing_events').execute();
  await db.schema.dropTable('billing_subscriptions').execute();
}

// Anonymization configs (docs/contract.md §9.2): rules for one connection, checked against its schema when saved,
// with the key of the deterministic transformers sealed (never stored in clear, never returned).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('anonymize_configs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('connection_id', 'uuid', (c) => c.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // [{table, column, transformer, options}], tables named as the schema names them
    .addColumn('rules', 'jsonb', (c) => c.notNull())
    // [{table, column, from: {table, column}, via}]: referencing columns that take a key's rule
    .addColumn('propagated', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('strict', 'boolean', (c) => c.notNull().defaultTo(false))
    // The key sealed with the service's secret box (purpose bound to the config's id).
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    // A keyed fingerprint of the key: what approvals bind, without revealing it.
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('anonymize_configs_project_name', ['project_id', 'name'])
    .execute();
  await db.schema
    .createIndex('anonymize_configs_project_created')
    .on('anonymize_configs')
    .columns(['project_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('anonymize_configs').execute();
}

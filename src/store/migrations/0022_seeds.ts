// Seed scenarios (docs/contract.md §9.1): a definition for one connection, checked against its schema when
// saved, and the integer seed that makes its rows deterministic.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('seed_scenarios')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('connection_id', 'uuid', (c) => c.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // {locale?, tables: [{table, rows, columns?: {<column>: <generator>}}]}, as given
    .addColumn('definition', 'jsonb', (c) => c.notNull())
    // A JSON number can exceed int4: bigint, read back as text by the driver and parsed.
    .addColumn('seed', 'bigint', (c) => c.notNull())
    .addColumn('created_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('seed_scenarios_project_name', ['project_id', 'name'])
    .execute();
  await db.schema
    .createIndex('seed_scenarios_project_created')
    .on('seed_scenarios')
    .columns(['project_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('seed_scenarios').execute();
}

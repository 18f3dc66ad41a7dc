// Data patches (docs/contract.md §9): DML for one connection of a project, parsed into statements when saved.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('patches')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('connection_id', 'uuid', (c) => c.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('sql', 'text', (c) => c.notNull())
    .addColumn('allow_full_table', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('draft', 'executing', 'executed', 'failed', 'rolled_back')`),
    )
    // [{index, kind, table, reversible, sql, has_where}]
    .addColumn('statements', 'jsonb', (c) => c.notNull())
    .addColumn('executed_at', 'timestamptz')
    // The run that executed it: its backup tables hold the before- and after-images a rollback needs.
    .addColumn('execute_run_id', 'uuid')
    .addColumn('created_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('patches_project_created')
    .on('patches')
    .columns(['project_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('patches').execute();
}

// Schema migrations (docs/contract.md §8): a compare of two connections of a project, the planned or edited SQL
// with its statements, lint warnings and rollback, and what apply and rollback need later (the
// plan, the source and target models as compared, the table scope).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('migrations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('source_connection_id', 'uuid', (c) =>
      c.notNull().references('connections.id').onDelete('cascade'),
    )
    .addColumn('target_connection_id', 'uuid', (c) =>
      c.notNull().references('connections.id').onDelete('cascade'),
    )
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('draft', 'applying', 'applied', 'failed', 'rolled_back')`),
    )
    .addColumn('generated_sql', 'text', (c) => c.notNull())
    // [{sql, kind, destructive, transactional, reversible, object, facts, rollback}]
    .addColumn('statements', 'jsonb', (c) => c.notNull())
    .addColumn('lint_warnings', 'jsonb', (c) => c.notNull())
    // The whole rollback as executable statements, or null when one statement has none.
    .addColumn('rollback', 'jsonb')
    .addColumn('rollback_sql', 'text')
    // The planned Migration (engine), kept so that unchanged statements of an edit keep their annotations.
    .addColumn('plan', 'jsonb', (c) => c.notNull())
    .addColumn('source_model', 'jsonb', (c) => c.notNull())
    .addColumn('target_model', 'jsonb', (c) => c.notNull())
    .addColumn('scope', 'jsonb', (c) => c.notNull())
    .addColumn('source_schema_hash', 'text', (c) => c.notNull())
    .addColumn('target_schema_hash', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'timestamptz')
    .addColumn('created_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('migrations_project_created')
    .on('migrations')
    .columns(['project_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('migrations').execute();
}

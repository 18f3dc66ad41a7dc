// Runs: every execution of an operation (patch, migration, seed, anonymization, bridge, drift check).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('runs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'uuid')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('approval_id', 'uuid')
    .addColumn('progress_done', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('progress_total', 'bigint')
    .addColumn('progress_unit', 'text', (c) => c.notNull())
    .addColumn('params', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('result', 'jsonb')
    .addColumn('error', 'text')
    .addColumn('created_by', 'uuid')
    .addColumn('cancel_requested', 'boolean', (c) => c.notNull().defaultTo(false))
    // The process working the run and its last sign of life: a run whose worker died is failed.
    .addColumn('worker_id', 'text')
    .addColumn('heartbeat_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('runs_project_created')
    .on('runs')
    .columns(['project_id', 'created_at'])
    .execute();
  await db.schema.createIndex('runs_org_created').on('runs').columns(['org_id', 'created_at']).execute();
  await db.schema.createIndex('runs_status').on('runs').column('status').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('runs').execute();
}

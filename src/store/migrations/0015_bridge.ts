// Bridge runs (docs/contract.md §9.3): the tables each run finished loading, committed one by one as the run
// goes, so that a run that fails, is cancelled or dies with its process still tells which tables
// are done, and the next run of the same request skips them.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bridge_table_loads')
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('rows', 'bigint', (c) => c.notNull())
    // Loaded by an earlier run of the same request and skipped by this one.
    .addColumn('carried_over', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('finished_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('bridge_table_loads_pkey', ['run_id', 'table_name'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bridge_table_loads').execute();
}

// SCIM provisioning (docs/contract.md §12): the organization's token (a hash) and group mappings, the groups an
// identity provider pushes and their members, and which users SCIM manages (only those have their
// roles recomputed from group mappings).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scim_configs')
    .addColumn('org_id', 'uuid', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('token_hash', 'text')
    .addColumn('token_created_at', 'timestamptz')
    .addColumn('group_mappings', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('scim_configs_token')
    .on('scim_configs')
    .column('token_hash')
    .unique()
    .execute();
  await db.schema
    .createTable('scim_groups')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index scim_groups_name on scim_groups (org_id, lower(display_name))`.execute(db);
  await db.schema
    .createTable('scim_group_members')
    .addColumn('group_id', 'uuid', (c) => c.notNull().references('scim_groups.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('scim_group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('scim_managed', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('scim_managed').execute();
  await db.schema.dropTable('scim_group_members').execute();
  await db.schema.dropTable('scim_groups').execute();
  await db.schema.dropTable('scim_configs').execute();
}

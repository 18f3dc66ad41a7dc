// Connections to target databases (the password sealed with the secret box) and schema snapshots of
// them. A connection has at most one baseline snapshot: a partial unique index says so, so that two
// racing "make this the baseline" requests cannot both win.
import { type Kysely, sql } from 'kysely';

const now = sql`now()`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('connections')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('dialect', 'text', (c) => c.notNull().check(sql`dialect in ('postgresql', 'mysql')`))
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull().check(sql`port between 1 and 65535`))
    .addColumn('database', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    // `v1.<iv>.<ciphertext+tag>` from the secret box, purpose 'connection-password'; never plain text.
    .addColumn('password', 'text', (c) => c.notNull().check(sql`password like 'v1.%'`))
    .addColumn('ssl_mode', 'text', (c) =>
      c.notNull().check(sql`ssl_mode in ('disable', 'require', 'verify-full')`),
    )
    .addColumn('ca_cert', 'text')
    .addColumn('environment', 'text', (c) =>
      c.notNull().check(sql`environment in ('development', 'staging', 'production')`),
    )
    .addColumn('protected', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema
    .createIndex('connections_project_name')
    .on('connections')
    .expression(sql`project_id, lower(name)`)
    .unique()
    .execute();
  await db.schema
    .createIndex('connections_org_created')
    .on('connections')
    .columns(['org_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('snapshots')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('connection_id', 'uuid', (c) => c.notNull().references('connections.id').onDelete('cascade'))
    .addColumn('taken_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('schema_hash', 'text', (c) => c.notNull())
    .addColumn('schema_json', 'jsonb', (c) => c.notNull())
    .addColumn('is_baseline', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .createIndex('snapshots_one_baseline')
    .on('snapshots')
    .column('connection_id')
    .unique()
    .where(sql.ref('is_baseline'), '=', true)
    .execute();
  await db.schema
    .createIndex('snapshots_connection_taken')
    .on('snapshots')
    .columns(['connection_id', 'taken_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('snapshots').execute();
  await db.schema.dropTable('connections').execute();
}

// OAuth identities: which account at which provider signs in as which user. A provider account maps to
// one user (unique provider + provider user id), and a user has at most one account per provider, so a
// verified e-mail moving between two accounts at a provider cannot silently add a second way in.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_identities')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_user_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('oauth_identities_provider_user')
    .on('oauth_identities')
    .columns(['provider', 'provider_user_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('oauth_identities_user_provider')
    .on('oauth_identities')
    .columns(['user_id', 'provider'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_identities').execute();
}

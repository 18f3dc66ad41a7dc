// TOTP two-factor authentication: the user's sealed seed (and a pending one while enrolling), the last
// accepted time step (replay refusal), hashed one-time recovery codes, and the login challenges that
// stand between a verified first factor and a session.
import { type Kysely, sql } from 'kysely';

const now = sql`now()`;

export async function up(db: Kysely<unknown>): Promise<void> {
  // Seeds are sealed with the secret box (AES-256-GCM), never stored in plain text. A time step
  // (Unix seconds / 30) fits an integer until the year 4000.
  await db.schema
    .alterTable('users')
    .addColumn('totp_secret', 'text')
    .addColumn('totp_pending_secret', 'text')
    .addColumn('totp_last_step', 'integer')
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('recovery_codes_user_hash')
    .on('recovery_codes')
    .columns(['user_id', 'code_hash'])
    .unique()
    .execute();

  // The partial token of a login waiting for its second factor; only its SHA-256 is stored.
  await db.schema
    .createTable('login_challenges')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(now))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('login_challenges_user').on('login_challenges').column('user_id').execute();
  await db.schema
    .createIndex('login_challenges_expires')
    .on('login_challenges')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('login_challenges').execute();
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema
    .alterTable('users')
    .dropColumn('totp_secret')
    .dropColumn('totp_pending_secret')
    .dropColumn('totp_last_step')
    .execute();
}

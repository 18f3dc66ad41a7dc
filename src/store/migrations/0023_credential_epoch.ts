// The credential epoch: one counter that every change to what a credential resolves to bumps (a key
// or session revoked, expired or deleted; a user demoted, deactivated, deleted or moved; an
// organization's plan or limits changed). Processes cache the principal of a key or session and
// use it only while the epoch they read for the request equals the one it was cached under, so a
// revocation stays immediate in every process (src/modules/auth/credential-epoch.ts). The triggers
// do it in the same transaction as the change, whoever writes it: no writer can forget.
// `pg_notify` tells the embedded store's own process at once, with the committing query's answer.
import { type Kysely, sql } from 'kysely';

/** Columns a principal is built from; touching `last_used_at` or `last_seen_at` bumps nothing. */
const WATCHED = {
  api_keys: ['user_id', 'org_id', 'prefix', 'secret_hash', 'scopes', 'expires_at', 'revoked_at'],
  sessions: ['user_id', 'token_hash', 'expires_at', 'revoked_at'],
  users: ['org_id', 'email', 'org_role', 'active', 'deleted_at'],
  organizations: ['plan', 'rate_limit_per_minute', 'rate_limit_per_hour'],
} as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table "credential_epoch" (
    "id" boolean primary key default true check ("id"),
    "epoch" bigint not null
  )`.execute(db);
  await sql`insert into "credential_epoch" ("id", "epoch") values (true, 1)`.execute(db);
  // Deferred to the commit: the counter's row lock is taken last and held only while committing, so
  // it never sits in a lock cycle with the rows a transaction changes. Once per transaction: the
  // flag is transaction-local, so a bulk change (a user deleted with their keys and sessions) bumps
  // once.
  await sql`create function "bump_credential_epoch"() returns trigger language plpgsql as $$
    begin
      if current_setting('dbops.credential_epoch_bumped', true) is distinct from 'on' then
        perform set_config('dbops.credential_epoch_bumped', 'on', true);
        update "credential_epoch" set "epoch" = "epoch" + 1;
        perform pg_notify('credential_epoch', '');
      end if;
      return null;
    end $$`.execute(db);
  for (const [table, columns] of Object.entries(WATCHED)) {
    const changed = sql.join(
      columns.map((c) => sql`old.${sql.ref(c)} is distinct from new.${sql.ref(c)}`),
      sql` or `,
    );
    await sql`create constraint trigger ${sql.id(`${table}_credential_epoch_update`)}
      after update on ${sql.table(table)} deferrable initially deferred
      for each row when (${changed}) execute function "bump_credential_epoch"()`.execute(db);
    await sql`create constraint trigger ${sql.id(`${table}_credential_epoch_delete`)}
      after delete on ${sql.table(table)} deferrable initially deferred
      for each row execute function "bump_credential_epoch"()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of Object.keys(WATCHED)) {
    await sql`drop trigger ${sql.id(`${table}_credential_epoch_update`)} on ${sql.table(table)}`.execute(db);
    await sql`drop trigger ${sql.id(`${table}_credential_epoch_delete`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function "bump_credential_epoch"()`.execute(db);
  await sql`drop table "credential_epoch"`.execute(db);
}

// OAuth identities in the store: the link from a provider's account to a user.
import type { Insertable, Kysely } from 'kysely';
import type { Database, OAuthIdentitiesTable, OAuthIdentity, User } from '../../store/tables.ts';

type Executor = Kysely<Database>;

/** The user an identity signs in as, whatever its state (the caller refuses deactivated and deleted ones). */
export async function findUserByIdentity(
  db: Executor,
  provider: string,
  providerUserId: string,
): Promise<User | undefined> {
  return db
    .selectFrom('oauth_identities as i')
    .innerJoin('users as u', 'u.id', 'i.user_id')
    .selectAll('u')
    .where('i.provider', '=', provider)
    .where('i.provider_user_id', '=', providerUserId)
    .executeTakeFirst();
}

export async function findIdentityOfUser(
  db: Executor,
  userId: string,
  provider: string,
): Promise<OAuthIdentity | undefined> {
  return db
    .selectFrom('oauth_identities')
    .selectAll()
    .where('user_id', '=', userId)
    .where('provider', '=', provider)
    .executeTakeFirst();
}

export async function insertIdentity(
  db: Executor,
  identity: Insertable<OAuthIdentitiesTable>,
): Promise<OAuthIdentity> {
  return db.insertInto('oauth_identities').values(identity).returningAll().executeTakeFirstOrThrow();
}

/** A purge removes the user's personal data, and an identity is some (the e-mail, the account id). */
export async function deleteUserIdentities(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('oauth_identities').where('user_id', '=', userId).execute();
}

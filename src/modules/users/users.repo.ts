// Users of an organization. E-mails are stored lower-cased; a soft-deleted user keeps its row.
import type { Kysely } from 'kysely';
import type { Database, NewUser, User, UserUpdate } from '../../store/tables.ts';

type Executor = Kysely<Database>;

export async function findUser(db: Executor, orgId: string, id: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The live (not deleted) user with this e-mail, whatever the organization: e-mails sign in alone. */
export async function findLiveUserByEmail(db: Executor, email: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', email.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function usersQuery(db: Executor, orgId: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

export async function insertUser(db: Executor, user: NewUser): Promise<User> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: Executor, id: string, changes: UserUpdate): Promise<User> {
  return db.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/**
 * Serialises the changes that could take an organization's last owner away: without it, two owners
 * demoting each other at once would each still see the other as an owner, and both would succeed.
 * NO KEY UPDATE, so that inserts referencing the organization are not held up.
 */
export async function lockOrgOwnership(db: Executor, orgId: string): Promise<void> {
  await db.selectFrom('organizations').select('id').where('id', '=', orgId).forNoKeyUpdate().execute();
}

/** Active owners other than `exceptId`: an organization must always keep one. */
export async function countOtherActiveOwners(db: Executor, orgId: string, exceptId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('org_id', '=', orgId)
    .where('org_role', '=', 'owner')
    .where('active', '=', true)
    .where('deleted_at', 'is', null)
    .where('id', '!=', exceptId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function removeMemberships(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('project_members').where('user_id', '=', userId).execute();
}

export async function countUsers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

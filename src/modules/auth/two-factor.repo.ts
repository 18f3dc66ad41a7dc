// The store side of 2FA: the sealed seeds and last step on the user, hashed recovery codes, and the
// login challenges (partial tokens) of logins waiting for their second factor.
import type { Kysely } from 'kysely';
import type { Database, LoginChallenge, User } from '../../store/tables.ts';

type Executor = Kysely<Database>;

/** The user row, locked until the transaction ends: 2FA changes and code checks are serialised. */
export async function lockUser(db: Executor, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function setTwoFactor(
  db: Executor,
  id: string,
  changes: {
    two_factor_enabled?: boolean;
    totp_secret?: string | null;
    totp_pending_secret?: string | null;
    totp_last_step?: number | null;
    updated_at?: Date;
  },
): Promise<User> {
  return db.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Replaces every recovery code of a user with new ones. */
export async function replaceRecoveryCodes(
  db: Executor,
  userId: string,
  codes: { id: string; code_hash: string }[],
  now: Date,
): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  if (codes.length === 0) return;
  await db
    .insertInto('recovery_codes')
    .values(codes.map((code) => ({ ...code, user_id: userId, created_at: now })))
    .execute();
}

/** Marks an unused recovery code of the user used; false when there is none with this hash. */
export async function useRecoveryCode(
  db: Executor,
  userId: string,
  codeHash: string,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function insertChallenge(
  db: Executor,
  challenge: {
    id: string;
    token_hash: string;
    user_id: string;
    method: string;
    created_at: Date;
    expires_at: Date;
  },
): Promise<void> {
  await db.insertInto('login_challenges').values(challenge).execute();
}

/** The challenge of a partial token, locked until the transaction ends, whatever its state. */
export async function lockChallenge(db: Executor, tokenHash: string): Promise<LoginChallenge | undefined> {
  return db
    .selectFrom('login_challenges')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
}

export async function countChallengeFailure(db: Executor, id: string): Promise<number> {
  const row = await db
    .updateTable('login_challenges')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
    .where('id', '=', id)
    .returning('failed_attempts')
    .executeTakeFirstOrThrow();
  return row.failed_attempts;
}

export async function useChallenge(db: Executor, id: string, now: Date): Promise<void> {
  await db.updateTable('login_challenges').set({ used_at: now }).where('id', '=', id).execute();
}

/** Ends every open challenge of a user (2FA turned off: they could never complete). */
export async function endUserChallenges(db: Executor, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('login_challenges')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

/** Removes challenges that expired before `before`; returns how many. */
export async function deleteDeadChallenges(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('login_challenges').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

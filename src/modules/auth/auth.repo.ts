// Sessions in the store. The cookie carries a random token; only its SHA-256 is stored.
import type { Kysely } from 'kysely';
import type { Database, OrgRole, Plan } from '../../store/tables.ts';

type Executor = Kysely<Database>;

export interface LiveSession {
  id: string;
  user_id: string;
  org_id: string;
  org_role: OrgRole;
  email: string;
  last_seen_at: Date;
  expires_at: Date;
  plan: Plan;
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
}

/** The session of a token, if it is neither revoked nor expired and its user can still sign in. */
export async function findLiveSession(
  db: Executor,
  tokenHash: string,
  now: Date,
): Promise<LiveSession | undefined> {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('organizations as o', 'o.id', 'u.org_id')
    .select([
      's.id',
      's.user_id',
      'u.org_id',
      'u.org_role',
      'u.email',
      's.last_seen_at',
      's.expires_at',
      'o.plan',
      'o.rate_limit_per_minute',
      'o.rate_limit_per_hour',
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .where('u.active', '=', true)
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function touchSession(db: Executor, id: string, now: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function insertSession(
  db: Executor,
  session: {
    id: string;
    token_hash: string;
    user_id: string;
    ip: string | null;
    user_agent: string | null;
    created_at: Date;
    last_seen_at: Date;
    expires_at: Date;
  },
): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

export function liveSessionsQuery(db: Executor, userId: string, now: Date) {
  return db
    .selectFrom('sessions')
    .select(['id', 'ip', 'user_agent', 'created_at', 'last_seen_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

/** Revokes one session of a user; false when it is not theirs or not live. */
export async function revokeSession(db: Executor, userId: string, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Revokes every live session of a user, but `keep` (the caller's own, on a password change). */
export async function revokeUserSessions(
  db: Executor,
  userId: string,
  now: Date,
  keep?: string,
): Promise<void> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keep) query = query.where('id', '!=', keep);
  await query.execute();
}

/** Removes sessions that expired or were revoked before `before`; returns how many. */
export async function deleteDeadSessions(db: Executor, before: Date): Promise<number> {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// API keys in the store: the prefix is public and indexed, the secret is kept only as a SHA-256.
import type { Kysely } from 'kysely';
import type { Database, OrgRole, Plan, Scope } from '../../store/tables.ts';

type Executor = Kysely<Database>;

const PUBLIC_COLUMNS = [
  'id',
  'name',
  'scopes',
  'prefix',
  'expires_at',
  'revoked_at',
  'created_at',
  'last_used_at',
] as const;

export interface KeyWithOwner {
  id: string;
  secret_hash: string;
  scopes: Scope[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  user_id: string;
  org_id: string;
  org_role: OrgRole;
  email: string;
  owner_can_sign_in: boolean;
  plan: Plan;
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
}

/** The key with this prefix and its owner's current standing, read on every request. */
export async function findKeyByPrefix(db: Executor, prefix: string): Promise<KeyWithOwner | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('organizations as o', 'o.id', 'u.org_id')
    .select([
      'k.id',
      'k.secret_hash',
      'k.scopes',
      'k.expires_at',
      'k.revoked_at',
      'k.last_used_at',
      'k.user_id',
      'u.org_id',
      'u.org_role',
      'u.email',
      'u.active',
      'u.deleted_at',
      'o.plan',
      'o.rate_limit_per_minute',
      'o.rate_limit_per_hour',
    ])
    .where('k.prefix', '=', prefix)
    .executeTakeFirst();
  if (!row) return undefined;
  const { active, deleted_at, ...key } = row;
  return { ...key, owner_can_sign_in: active && deleted_at === null };
}

export async function touchKey(db: Executor, id: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}

export async function insertKey(
  db: Executor,
  key: {
    id: string;
    org_id: string;
    user_id: string;
    name: string;
    prefix: string;
    secret_hash: string;
    scopes: Scope[];
    expires_at: Date | null;
    created_at: Date;
  },
) {
  return db.insertInto('api_keys').values(key).returning(PUBLIC_COLUMNS).executeTakeFirstOrThrow();
}

export function userKeysQuery(db: Executor, userId: string) {
  return db
    .selectFrom('api_keys')
    .select(PUBLIC_COLUMNS)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

export async function findUserKey(db: Executor, userId: string, id: string) {
  return db
    .selectFrom('api_keys')
    .select(PUBLIC_COLUMNS)
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function revokeKey(db: Executor, id: string, now: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function revokeUserKeys(db: Executor, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

// The organization's SCIM token: shown once when an org admin makes it, stored as a SHA-256, and a
// new one replaces the old at once. It only opens /scim/v2 (never /api/v1), and only for its
// organization.
import { randomToken, sha256 } from '../../security/tokens.ts';
import type { Db } from '../../store/db.ts';

export const SCIM_TOKEN_PREFIX = 'scim_';

export function newScimToken(): string {
  return `${SCIM_TOKEN_PREFIX}${randomToken()}`;
}

/** The organization a bearer token belongs to, if any. */
export async function orgOfScimToken(db: Db, token: string): Promise<string | undefined> {
  if (!token.startsWith(SCIM_TOKEN_PREFIX)) return undefined;
  const row = await db
    .selectFrom('scim_configs')
    .select('org_id')
    .where('token_hash', '=', sha256(token))
    .executeTakeFirst();
  return row?.org_id;
}

export async function storeScimToken(db: Db, orgId: string, token: string, at: Date): Promise<void> {
  await db
    .insertInto('scim_configs')
    .values({ org_id: orgId, token_hash: sha256(token), token_created_at: at, updated_at: at })
    .onConflict((oc) =>
      oc.column('org_id').doUpdateSet({ token_hash: sha256(token), token_created_at: at, updated_at: at }),
    )
    .execute();
}

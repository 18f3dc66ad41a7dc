// The principal behind a session cookie or an API key, read from the store on every request so that
// a revocation, a demotion or a deactivation takes effect at once. The HTTP layer parses the
// credential (src/http/auth.ts) and asks here; only hashes of secrets are stored and compared.
import type { Principal } from '../../core/actors.ts';
import { unauthenticated } from '../../core/errors.ts';
import type { CredentialLookup } from '../../http/auth.ts';
import { safeEqual, sha256 } from '../../security/tokens.ts';
import type { Db } from '../../store/db.ts';
import { findKeyByPrefix, touchKey } from '../api-keys/api-keys.repo.ts';
import { findLiveSession, touchSession } from './auth.repo.ts';

/** last_used_at and last_seen_at are written at most this often, to keep writes off the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

/** What a session or a key row tells of its user and organization. */
interface OwnerRow {
  user_id: string;
  org_id: string;
  org_role: Principal['orgRole'];
  email: string;
  plan: Principal['plan'];
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
}

function principalOf(
  row: OwnerRow,
  credential: Pick<Principal, 'via' | 'scopes' | 'sessionId' | 'apiKeyId'>,
): Principal {
  return {
    userId: row.user_id,
    orgId: row.org_id,
    orgRole: row.org_role,
    email: row.email,
    ...credential,
    plan: row.plan,
    customLimits: { perMinute: row.rate_limit_per_minute, perHour: row.rate_limit_per_hour },
  };
}

export function createCredentialLookup({ db, now }: { db: Db; now: () => Date }): CredentialLookup {
  return {
    async session(token) {
      const at = now();
      const session = await findLiveSession(db, sha256(token), at);
      if (!session) throw unauthenticated('Session expired or revoked');
      if (at.getTime() - session.last_seen_at.getTime() > TOUCH_INTERVAL_MS)
        await touchSession(db, session.id, at);
      return principalOf(session, { via: 'session', scopes: null, sessionId: session.id, apiKeyId: null });
    },

    async apiKey(prefix, secret) {
      const key = await findKeyByPrefix(db, prefix);
      if (!key || !safeEqual(key.secret_hash, sha256(secret))) throw unauthenticated('Invalid API key');
      const at = now();
      if (key.revoked_at) throw unauthenticated('API key revoked');
      if (key.expires_at && key.expires_at <= at) throw unauthenticated('API key expired');
      if (!key.owner_can_sign_in) throw unauthenticated('API key owner is deactivated');
      if (!key.last_used_at || at.getTime() - key.last_used_at.getTime() > TOUCH_INTERVAL_MS)
        await touchKey(db, key.id, at);
      return principalOf(key, { via: 'api_key', scopes: key.scopes, sessionId: null, apiKeyId: key.id });
    },
  };
}

// The principal behind a session cookie or an API key, read from the store on every request so that
// a revocation, a demotion or a deactivation takes effect at once. The HTTP layer parses the
// credential (src/http/auth.ts) and asks here; only hashes of secrets are stored and compared.
import { unauthenticated } from '../../core/errors.ts';
import type { CredentialLookup } from '../../http/auth.ts';
import { safeEqual, sha256 } from '../../security/tokens.ts';
import type { Db } from '../../store/db.ts';
import { findKeyByPrefix, touchKey } from '../api-keys/api-keys.repo.ts';
import { findLiveSession, touchSession } from './auth.repo.ts';

/** last_used_at and last_seen_at are written at most this often, to keep writes off the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

export function createCredentialLookup({ db, now }: { db: Db; now: () => Date }): CredentialLookup {
  return {
    async session(token) {
      const at = now();
      const session = await findLiveSession(db, sha256(token), at);
      if (!session) throw unauthenticated('Session expired or revoked');
      if (at.getTime() - session.last_seen_at.getTime() > TOUCH_INTERVAL_MS)
        await touchSession(db, session.id, at);
      return {
        userId: session.user_id,
        orgId: session.org_id,
        orgRole: session.org_role,
        email: session.email,
        via: 'session',
        scopes: null,
        sessionId: session.id,
        apiKeyId: null,
        plan: session.plan,
        customLimits: { perMinute: session.rate_limit_per_minute, perHour: session.rate_limit_per_hour },
      };
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
      return {
        userId: key.user_id,
        orgId: key.org_id,
        orgRole: key.org_role,
        email: key.email,
        via: 'api_key',
        scopes: key.scopes,
        sessionId: null,
        apiKeyId: key.id,
        plan: key.plan,
        customLimits: { perMinute: key.rate_limit_per_minute, perHour: key.rate_limit_per_hour },
      };
    },
  };
}

// The principal behind a session cookie or an API key. The HTTP layer parses the credential
// (src/http/auth.ts) and asks here; only hashes of secrets are stored and compared.
//
// A principal found in the store is cached, tagged with the credential epoch read before the lookup
// (./credential-epoch.ts), and used again only while the request's epoch is the same: any
// revocation, demotion, deactivation or plan change bumps the epoch in its own transaction, so it
// takes effect at once in every process. Expiry is checked on every use against the clock.
//
// A route whose store query also reads the epoch (`config.epochInQuery`, src/http/confirmed-read.ts)
// saves the separate read: the cached principal is handed over unconfirmed, with the epoch it was
// cached under, and the route compares it with the one its query saw in the same round trip. Only a
// store whose epoch is a value in the store (PostgreSQL) can be confirmed that way.
import type { Principal } from '../../core/actors.ts';
import { unauthenticated } from '../../core/errors.ts';
import type { CredentialLookup, Identified } from '../../http/auth.ts';
import { safeEqual, sha256 } from '../../security/tokens.ts';
import type { Db } from '../../store/db.ts';
import { findKeyByPrefix, touchKey } from '../api-keys/api-keys.repo.ts';
import { findLiveSession, touchSession } from './auth.repo.ts';
import type { CredentialEpoch } from './credential-epoch.ts';

/** last_used_at and last_seen_at are written at most this often, to keep writes off the hot path. */
const TOUCH_INTERVAL_MS = 60_000;
/** Cached credentials per process; the oldest entry makes room when full. */
const CACHE_ENTRIES = 10_000;

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

interface Cached {
  epoch: string;
  principal: Principal;
  /** The stored hash the presented secret must match (keys; sessions are cached by their hash). */
  secretHash: string;
  expiresAt: Date | null;
  touchedAt: Date | null;
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

const touchDue = (touchedAt: Date | null, at: Date) =>
  !touchedAt || at.getTime() - touchedAt.getTime() > TOUCH_INTERVAL_MS;

export function createCredentialLookup({
  db,
  now,
  epoch,
}: {
  db: Db;
  now: () => Date;
  epoch: CredentialEpoch;
}): CredentialLookup {
  const cache = new Map<string, Cached>();

  function remember(id: string, entry: Cached): void {
    cache.delete(id);
    if (cache.size >= CACHE_ENTRIES) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(id, entry);
  }

  /** The cached entry if it is of this epoch; a stale one is dropped. */
  function cached(id: string, current: string): Cached | undefined {
    const entry = cache.get(id);
    if (entry?.epoch === current) return entry;
    if (entry) cache.delete(id);
    return undefined;
  }

  /**
   * The principal of credential `id`: from the cache (unconfirmed when `defer` and the epoch can be
   * read with the route's data), else confirmed against the epoch read now, else `load`ed fresh.
   */
  async function identify(
    id: string,
    defer: boolean,
    matches: (entry: Cached) => boolean,
    load: (epoch: string) => Promise<Cached>,
  ): Promise<{ entry: Cached; unconfirmed: string | null }> {
    if (defer && epoch.inQuery) {
      const entry = cache.get(id);
      if (entry && matches(entry)) return { entry, unconfirmed: entry.epoch };
    }
    const current = await epoch.read();
    let entry = cached(id, current);
    if (!entry || !matches(entry)) {
      entry = await load(current);
      remember(id, entry);
    }
    return { entry, unconfirmed: null };
  }

  /** What the HTTP layer gets: the principal, and how to confirm or refresh it. */
  function identified(
    found: { entry: Cached; unconfirmed: string | null },
    again: () => Promise<Principal>,
  ): Identified {
    return {
      principal: found.entry.principal,
      unconfirmedEpoch: found.unconfirmed,
      readEpoch: () => epoch.read(),
      refresh: again,
    };
  }

  async function checked(entry: Cached, expired: string, touch: (at: Date) => Promise<void>) {
    const at = now();
    if (entry.expiresAt && entry.expiresAt <= at) throw unauthenticated(expired);
    if (touchDue(entry.touchedAt, at)) {
      entry.touchedAt = at;
      await touch(at);
    }
  }

  async function session(token: string, defer: boolean): Promise<Identified> {
    const tokenHash = sha256(token);
    const id = `s:${tokenHash}`;
    const found = await identify(
      id,
      defer,
      () => true,
      async (current) => {
        const session = await findLiveSession(db, tokenHash, now());
        if (!session) throw unauthenticated('Session expired or revoked');
        return {
          epoch: current,
          principal: principalOf(session, {
            via: 'session',
            scopes: null,
            sessionId: session.id,
            apiKeyId: null,
          }),
          secretHash: tokenHash,
          expiresAt: session.expires_at,
          touchedAt: session.last_seen_at,
        };
      },
    );
    await checked(found.entry, 'Session expired or revoked', (at) =>
      touchSession(db, found.entry.principal.sessionId ?? '', at),
    );
    return identified(found, async () => {
      cache.delete(id);
      return (await session(token, false)).principal;
    });
  }

  async function apiKey(prefix: string, secret: string, defer: boolean): Promise<Identified> {
    const secretHash = sha256(secret);
    const id = `k:${prefix}`;
    const found = await identify(
      id,
      defer,
      (entry) => safeEqual(entry.secretHash, secretHash),
      async (current) => {
        const key = await findKeyByPrefix(db, prefix);
        if (!key || !safeEqual(key.secret_hash, secretHash)) throw unauthenticated('Invalid API key');
        if (key.revoked_at) throw unauthenticated('API key revoked');
        if (!key.owner_can_sign_in) throw unauthenticated('API key owner is deactivated');
        return {
          epoch: current,
          principal: principalOf(key, {
            via: 'api_key',
            scopes: key.scopes,
            sessionId: null,
            apiKeyId: key.id,
          }),
          secretHash: key.secret_hash,
          expiresAt: key.expires_at,
          touchedAt: key.last_used_at,
        };
      },
    );
    await checked(found.entry, 'API key expired', (at) =>
      touchKey(db, found.entry.principal.apiKeyId ?? '', at),
    );
    return identified(found, async () => {
      cache.delete(id);
      return (await apiKey(prefix, secret, false)).principal;
    });
  }

  return {
    session: (token, options) => session(token, options?.deferEpoch ?? false),
    apiKey: (prefix, secret, options) => apiKey(prefix, secret, options?.deferEpoch ?? false),
  };
}

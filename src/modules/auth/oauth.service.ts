// Sign-in through an external provider (docs/contract.md §3). `start` sends the browser to the provider with a
// fresh state, PKCE verifier and (OIDC) nonce, sealed into a short-lived cookie rather than a store
// row, so any process can take the callback. `finish` checks that cookie against the callback,
// redeems the code for the provider's profile, finds or links or creates the user, and hands over to
// completeLogin (session or 2FA step). Identities link by the provider's account id; a first login
// links to an existing user only through an e-mail the provider has verified. Every outcome is audited
// with a reason, never with a code, token or cookie value.
import { randomUUID } from 'node:crypto';
import type { AnonymousActor } from '../../core/actors.ts';
import { AppError, forbidden } from '../../core/errors.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { safeEqual } from '../../security/tokens.ts';
import type { Db } from '../../store/db.ts';
import type { User } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { OrgsService } from '../orgs/orgs.service.ts';
import { findLiveUserByEmail } from '../users/users.repo.ts';
import type { AuthService, LoginResult } from './auth.service.ts';
import { findIdentityOfUser, findUserByIdentity, insertIdentity } from './oauth.repo.ts';
import {
  type OAuthChecks,
  type OAuthProfile,
  type OAuthProvider,
  OAuthProviderError,
  type OAuthProviderName,
} from './oauth-providers.ts';

export type OAuthService = ReturnType<typeof createOAuthService>;

/** How long a started sign-in may take at the provider. */
export const OAUTH_STATE_TTL_SECONDS = 600;
const SEAL_PURPOSE = 'oauth-state';

export const NOT_CONFIGURED = 'OAuth provider not configured';
const STATE_MISSING = 'OAuth sign-in state missing or expired: start the sign-in again';
const STATE_MISMATCH = 'OAuth state mismatch: start the sign-in again';
const DEACTIVATED = 'This account is deactivated or deleted';

/** The sealed content of the state cookie. */
interface SealedState {
  provider: OAuthProviderName;
  state: string;
  code_verifier: string;
  nonce: string | null;
  /** Unix milliseconds. */
  expires_at: number;
}

/** The callback's query: the provider's parameters, as strings. */
export type CallbackParams = Record<string, string | undefined>;

export function createOAuthService(deps: {
  db: Db;
  audit: AuditService;
  auth: Pick<AuthService, 'completeLogin'>;
  orgs: Pick<OrgsService, 'createWithOwner'>;
  box: SecretBox;
  providers: Partial<Record<OAuthProviderName, OAuthProvider>>;
  signupOpen: boolean;
  now: () => Date;
}) {
  const { db, audit, auth, orgs, box, providers, now } = deps;

  function providerOf(name: OAuthProviderName): OAuthProvider {
    const provider = providers[name];
    if (!provider) throw new AppError('not_found', NOT_CONFIGURED);
    return provider;
  }

  function unavailable(provider: OAuthProvider, cause: unknown): AppError {
    const error = new AppError(
      'target_unavailable',
      `OAuth provider ${provider.label} is unreachable or answered an invalid response`,
    );
    error.cause = cause;
    return error;
  }

  function openState(sealed: string | undefined): SealedState | null {
    if (!sealed) return null;
    try {
      const state = JSON.parse(box.open(sealed, SEAL_PURPOSE)) as SealedState;
      return state.expires_at > now().getTime() ? state : null;
    } catch {
      // Tampered with, sealed with another key, or not ours: as good as missing.
      return null;
    }
  }

  return {
    /** The provider's authorization URL and the sealed state for the cookie. */
    async start(name: OAuthProviderName): Promise<{ url: string; sealedState: string }> {
      const provider = providerOf(name);
      let started: { url: URL; checks: OAuthChecks };
      try {
        started = await provider.start();
      } catch (error) {
        throw error instanceof OAuthProviderError ? unavailable(provider, error) : error;
      }
      const state: SealedState = {
        provider: name,
        state: started.checks.state,
        code_verifier: started.checks.codeVerifier,
        nonce: started.checks.nonce,
        expires_at: now().getTime() + OAUTH_STATE_TTL_SECONDS * 1000,
      };
      return { url: started.url.href, sealedState: box.seal(JSON.stringify(state), SEAL_PURPOSE) };
    },

    /** The callback: a login (session or 2FA step), or an audited refusal. */
    async finish(
      actor: AnonymousActor,
      name: OAuthProviderName,
      params: CallbackParams,
      sealedState: string | undefined,
    ): Promise<LoginResult> {
      const provider = providerOf(name);

      async function refuse(reason: string, detail: string, user?: User, extra: object = {}): Promise<never> {
        await audit.record(db, actor, {
          action: 'auth.login',
          outcome: 'failure',
          orgId: user?.org_id ?? null,
          target: user ? { type: 'user', id: user.id, label: user.email } : undefined,
          details: { method: name, reason, ...extra },
        });
        throw forbidden(detail);
      }

      const state = openState(sealedState);
      if (!state) return refuse('state_missing', STATE_MISSING);
      if (params.error !== undefined) {
        // The provider's error code is echoed only when it looks like one (RFC 6749 §4.1.2.1).
        const code = /^[\w.-]{1,64}$/.test(params.error) ? params.error : 'error';
        const detail =
          code === 'access_denied'
            ? `Sign-in with ${provider.label} was cancelled: consent was denied (access_denied)`
            : `${provider.label} refused the sign-in (${code})`;
        return refuse(code === 'access_denied' ? 'access_denied' : 'provider_error', detail, undefined, {
          provider_error: code,
        });
      }
      if (state.provider !== name || !safeEqual(params.state ?? '', state.state)) {
        return refuse('state_mismatch', STATE_MISMATCH);
      }
      if (!params.code) return refuse('code_missing', 'OAuth callback without an authorization code');

      let profile: OAuthProfile;
      try {
        const callback = new URLSearchParams(
          Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
        );
        profile = await provider.profile(callback, {
          state: state.state,
          codeVerifier: state.code_verifier,
          nonce: state.nonce,
        });
      } catch (error) {
        if (!(error instanceof OAuthProviderError)) throw error;
        if (error.kind === 'refused') {
          return refuse(error.reason, `${provider.label} did not confirm this sign-in (${error.reason})`);
        }
        await audit.record(db, actor, {
          action: 'auth.login',
          outcome: 'failure',
          details: { method: name, reason: 'provider_unavailable', step: error.reason },
        });
        throw unavailable(provider, error);
      }

      const user = await userFor(provider, profile, refuse, actor);
      return auth.completeLogin(actor, user, name);
    },
  };

  /** The user this profile signs in as: by identity, else linked by verified e-mail, else a signup. */
  async function userFor(
    provider: OAuthProvider,
    profile: OAuthProfile,
    refuse: (reason: string, detail: string, user?: User) => Promise<never>,
    actor: AnonymousActor,
  ): Promise<User> {
    const linked = await findUserByIdentity(db, provider.name, profile.providerUserId);
    if (linked) {
      if (!linked.active || linked.deleted_at) return refuse('deactivated', DEACTIVATED, linked);
      return linked;
    }
    if (!profile.email || !profile.emailVerified) {
      return refuse(
        'email_unverified',
        `${provider.label} did not give a verified e-mail address for this account; ` +
          `verify it at ${provider.label} and sign in again`,
      );
    }
    const email = profile.email.trim().toLowerCase();
    const identity = (userId: string) => ({
      id: randomUUID(),
      user_id: userId,
      provider: provider.name,
      provider_user_id: profile.providerUserId,
      email,
      created_at: now(),
    });

    const existing = await findLiveUserByEmail(db, email);
    if (existing) {
      if (!existing.active) return refuse('deactivated', DEACTIVATED, existing);
      if (await findIdentityOfUser(db, existing.id, provider.name)) {
        return refuse(
          'other_identity_linked',
          `This account is already linked to another ${provider.label} account`,
          existing,
        );
      }
      await db.transaction().execute(async (trx) => {
        await insertIdentity(trx, identity(existing.id));
        await audit.record(trx, actor, {
          action: 'auth.oauth.link',
          orgId: existing.org_id,
          target: { type: 'user', id: existing.id, label: existing.email },
          details: { provider: provider.name, via: 'verified_email' },
        });
      });
      return existing;
    }

    if (!deps.signupOpen) {
      return refuse(
        'signup_closed',
        `Signup is closed: no account here matches this ${provider.label} account; ask an administrator to invite you`,
      );
    }
    // Names are capped like every name of the API.
    const label = (profile.name ?? email).slice(0, 100);
    const { owner } = await orgs.createWithOwner(
      { orgName: label, email, name: profile.name?.slice(0, 100) },
      {
        actor,
        source: 'oauth',
        inTransaction: async (trx, created) => {
          await insertIdentity(trx, identity(created.owner.id));
          await audit.record(trx, actor, {
            action: 'auth.oauth.link',
            orgId: created.org.id,
            target: { type: 'user', id: created.owner.id, label: created.owner.email },
            details: { provider: provider.name, via: 'signup' },
          });
        },
      },
    );
    return owner;
  }
}

// The external sign-in providers behind one small interface: Google through OpenID Connect (discovery,
// ID token checked by openid-client) and GitHub as plain OAuth 2 (token endpoint and REST API through
// fetch). Both use state and PKCE S256, Google a nonce too. Every URL comes from the config, so tests
// point them at local fakes; a provider that cannot be reached or answers nonsense is "unavailable"
// (502), one that refuses this sign-in is "refused" (403).
import * as oidc from 'openid-client';
import type { GithubOAuthConfig, GoogleOAuthConfig } from '../../config.ts';

export const OAUTH_PROVIDERS = ['google', 'github'] as const;
export type OAuthProviderName = (typeof OAUTH_PROVIDERS)[number];

/** What the callback must match: kept in the sealed state cookie between authorize and callback. */
export interface OAuthChecks {
  state: string;
  codeVerifier: string;
  /** OpenID Connect only. */
  nonce: string | null;
}

export interface OAuthProfile {
  /** The provider's stable account id: what identities link by. */
  providerUserId: string;
  email: string | null;
  /** True only when the provider itself vouches for the e-mail. */
  emailVerified: boolean;
  name: string | null;
}

export interface OAuthProvider {
  name: OAuthProviderName;
  /** For messages: "Google", "GitHub". */
  label: string;
  /** Where to send the browser, and the checks the callback must pass. */
  start(): Promise<{ url: URL; checks: OAuthChecks }>;
  /** Redeems the code of a callback (already checked against `checks.state`) for the account's profile. */
  profile(callback: URLSearchParams, checks: OAuthChecks): Promise<OAuthProfile>;
}

export class OAuthProviderError extends Error {
  readonly kind: 'refused' | 'unavailable';
  /** Machine-readable, for the audit trail; never carries a token or a code. */
  readonly reason: string;

  constructor(kind: 'refused' | 'unavailable', reason: string, cause?: unknown) {
    super(`${kind}: ${reason}`, { cause });
    this.kind = kind;
    this.reason = reason;
  }
}

/** Requests to a provider end after this long: a hanging provider is an unavailable one. */
const TIMEOUT_SECONDS = 10;

export function createOAuthProviders(
  config: { google?: GoogleOAuthConfig; github?: GithubOAuthConfig },
  callbackUrl: (provider: OAuthProviderName) => string,
): Partial<Record<OAuthProviderName, OAuthProvider>> {
  return {
    ...(config.google && { google: createGoogleProvider(config.google, callbackUrl('google')) }),
    ...(config.github && { github: createGithubProvider(config.github, callbackUrl('github')) }),
  };
}

function createGoogleProvider(config: GoogleOAuthConfig, redirectUri: string): OAuthProvider {
  let discovered: Promise<oidc.Configuration> | undefined;

  /** Discovery once per process, on first use (the service starts while the provider is down); retried after a failure. */
  function configuration(): Promise<oidc.Configuration> {
    discovered ??= oidc
      .discovery(new URL(config.issuerUrl), config.clientId, config.clientSecret, undefined, {
        // Plain HTTP only when the configured issuer is itself http:// (a local fake in tests).
        execute: new URL(config.issuerUrl).protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
        timeout: TIMEOUT_SECONDS,
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw new OAuthProviderError('unavailable', 'discovery_failed', error);
      });
    return discovered;
  }

  return {
    name: 'google',
    label: 'Google',
    async start() {
      const oidcConfig = await configuration();
      const checks = {
        state: oidc.randomState(),
        codeVerifier: oidc.randomPKCECodeVerifier(),
        nonce: oidc.randomNonce(),
      };
      const url = oidc.buildAuthorizationUrl(oidcConfig, {
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid email profile',
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url, checks };
    },

    async profile(callback, checks) {
      const oidcConfig = await configuration();
      // openid-client derives redirect_uri from this URL by dropping its query: it must be the callback URL.
      const currentUrl = new URL(redirectUri);
      currentUrl.search = callback.toString();
      let claims: oidc.IDToken | undefined;
      try {
        const tokens = await oidc.authorizationCodeGrant(oidcConfig, currentUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce ?? undefined,
          idTokenExpected: true,
        });
        claims = tokens.claims();
      } catch (error) {
        throw classifyOidcError(error);
      }
      if (!claims || typeof claims.sub !== 'string' || claims.sub === '') {
        throw new OAuthProviderError('unavailable', 'id_token_without_subject');
      }
      const email = typeof claims.email === 'string' && claims.email !== '' ? claims.email : null;
      return {
        providerUserId: claims.sub,
        email,
        // Some issuers write the boolean as a string; anything else is not a verification.
        emailVerified: email !== null && (claims.email_verified === true || claims.email_verified === 'true'),
        name: typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim() : null,
      };
    },
  };
}

/**
 * A code the provider will not redeem, or an ID token that does not belong to this sign-in (nonce,
 * state, audience), is a refusal; anything else (network, status, JSON, signature, metadata) means
 * the provider is unreachable or answered something we cannot use.
 */
function classifyOidcError(error: unknown): OAuthProviderError {
  if (error instanceof oidc.ResponseBodyError) {
    return error.error === 'invalid_grant'
      ? new OAuthProviderError('refused', 'code_rejected', error)
      : new OAuthProviderError('unavailable', 'token_endpoint_error', error);
  }
  if (error instanceof oidc.AuthorizationResponseError) {
    return new OAuthProviderError('refused', 'provider_error', error);
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' || code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED') {
    return new OAuthProviderError('refused', 'id_token_mismatch', error);
  }
  return new OAuthProviderError('unavailable', 'token_exchange_failed', error);
}

function createGithubProvider(config: GithubOAuthConfig, redirectUri: string): OAuthProvider {
  /** One JSON call to GitHub; every way it can fail is "unavailable" except what the caller decides. */
  async function call(step: string, url: string, init: RequestInit): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000),
        headers: { accept: 'application/json', 'user-agent': 'dbops', ...init.headers },
      });
    } catch (error) {
      throw new OAuthProviderError('unavailable', `${step}_unreachable`, error);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new OAuthProviderError('unavailable', `${step}_status_${response.status}`);
    }
    try {
      return await response.json();
    } catch (error) {
      throw new OAuthProviderError('unavailable', `${step}_not_json`, error);
    }
  }

  const api = (token: string) => ({
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token}`,
      'x-github-api-version': '2022-11-28',
    },
  });

  return {
    name: 'github',
    label: 'GitHub',
    async start() {
      const checks = { state: oidc.randomState(), codeVerifier: oidc.randomPKCECodeVerifier(), nonce: null };
      const url = new URL(config.authorizeUrl);
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('scope', 'read:user user:email');
      url.searchParams.set('state', checks.state);
      url.searchParams.set('code_challenge', await oidc.calculatePKCECodeChallenge(checks.codeVerifier));
      url.searchParams.set('code_challenge_method', 'S256');
      return { url, checks };
    },

    async profile(callback, checks) {
      const token = await call('token', config.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: config.clientId,
          client_secret: config.clientSecret,
          code: callback.get('code') ?? '',
          redirect_uri: redirectUri,
          code_verifier: checks.codeVerifier,
        }),
      });
      if (!isObject(token)) throw new OAuthProviderError('unavailable', 'token_not_object');
      // GitHub answers a bad code with 200 and {error}: bad_verification_code is this sign-in's fault,
      // anything else (wrong client credentials, a misconfigured app) is the service's.
      if (token.error !== undefined) {
        throw token.error === 'bad_verification_code' || token.error === 'invalid_grant'
          ? new OAuthProviderError('refused', 'code_rejected')
          : new OAuthProviderError('unavailable', 'token_endpoint_error');
      }
      if (typeof token.access_token !== 'string' || token.access_token === '') {
        throw new OAuthProviderError('unavailable', 'token_missing');
      }
      const user = await call('user', `${config.apiUrl}/user`, api(token.access_token));
      const emails = await call('emails', `${config.apiUrl}/user/emails`, api(token.access_token));
      if (!isObject(user) || !(Number.isSafeInteger(user.id) || (typeof user.id === 'string' && user.id))) {
        throw new OAuthProviderError('unavailable', 'user_without_id');
      }
      if (!Array.isArray(emails)) throw new OAuthProviderError('unavailable', 'emails_not_list');
      // Only the primary address, and only when GitHub has verified it: another verified address
      // could be one the account holder added but does not use to sign in anywhere.
      const primary = emails.find(
        (e): e is { email: string } =>
          isObject(e) && e.primary === true && e.verified === true && typeof e.email === 'string',
      );
      const name = [user.name, user.login].find((n): n is string => typeof n === 'string' && n.trim() !== '');
      return {
        providerUserId: String(user.id),
        email: primary?.email ?? null,
        emailVerified: primary !== undefined,
        name: name?.trim() ?? null,
      };
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The world of an OAuth suite: oauth2-mock-server as Google (OpenID Connect, real discovery, signed
// ID tokens, PKCE checked) and a GitHub-shaped fake (./fake-github.ts) on loopback, an app with both
// providers, a second one with signup closed and GitHub not configured, and the browser's side of
// the flow: the test follows the redirects itself and carries the cookies. `oauthSuite` registers
// its own beforeAll/afterAll.
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, expect } from 'vitest';
import type { GoogleOAuthConfig } from '../../src/config.ts';
import { type Client, createTestApp, type TestApp } from './app.ts';
import { type FakeGithub, type FakeGithubAccount, startFakeGithub } from './fake-github.ts';

export const AUTH = '/api/v1/auth';
export const PUBLIC_URL = 'http://app.test';

export type Injected = Awaited<ReturnType<TestApp['app']['inject']>>;
export type Claims = { sub: string; email?: string; email_verified?: boolean | string; name?: string };

/** A signed-in browser: the cookies the callback set. */
export interface Browser {
  session: string;
  csrf: string;
}

let counter = 0;
export const newSub = () => `google-sub-${Date.now()}-${++counter}`;
let nextGithubId = 4_000_000;
export const githubAccount = (emails: FakeGithubAccount['emails'], name: string | null = 'Grace Hopper') => ({
  id: ++nextGithubId,
  login: `gh-user-${nextGithubId}`,
  name,
  emails,
});

export interface OAuthSuite {
  /** Set once the suite's beforeAll has run. */
  google: OAuth2Server;
  github: FakeGithub;
  googleConfig: GoogleOAuthConfig;
  /** Both providers, signup open. */
  t: TestApp;
  /** Signup closed, GitHub not configured. */
  closed: TestApp;
  owner: Client;
  orgId: string;
  /** Claims of the next ID token the mock Google signs. */
  nextClaims: Claims;
  authorize(
    provider: string,
    app?: TestApp,
  ): Promise<{ location: URL; stateCookie: string; response: Injected }>;
  callback(provider: string, query: URLSearchParams, stateCookie?: string, app?: TestApp): Promise<Injected>;
  /** Google's side: its /authorize (no consent page in the mock) redirects back with code and state. */
  googleConsent(location: URL): Promise<URL>;
  googleLogin(claims: Claims, app?: TestApp): Promise<Injected>;
  githubLogin(account: FakeGithubAccount, app?: TestApp): Promise<Injected>;
  /** The callback signed the browser in: 302 to the web application with the two session cookies. */
  signedIn(response: Injected): Browser;
  refused(response: Injected, status?: number): { detail: string };
  call(
    b: Browser,
    method: 'GET' | 'PATCH',
    url: string,
    body?: object,
    app?: TestApp,
  ): Promise<{
    status: number;
    // biome-ignore lint/suspicious/noExplicitAny: the JSON body of any route
    body: any;
  }>;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON body of /auth/me
  me(b: Browser, app?: TestApp): Promise<any>;
  countUsers(app?: TestApp): Promise<number>;
  identitiesOf(userId: string, app?: TestApp): ReturnType<typeof identities>;
  /** Audit entries with this action, from the store (anonymous failures belong to no organization). */
  auditEntries(action: string, app?: TestApp): ReturnType<typeof auditRows>;
  /** Marks the audit trail now; the function returned gives the entries of an action written since. */
  watchAudit(app?: TestApp): Promise<(action: string) => ReturnType<typeof auditRows>>;
}

const identities = (app: TestApp, userId: string) =>
  app.store.db.selectFrom('oauth_identities').selectAll().where('user_id', '=', userId).execute();
const auditRows = (app: TestApp, action: string) =>
  app.store.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

export function oauthSuite(): OAuthSuite {
  const suite = { nextClaims: { sub: 'unset' } } as OAuthSuite;
  suite.authorize = async (provider, app = suite.t) => {
    const response = await app.app.inject({ method: 'GET', url: `${AUTH}/oauth/${provider}/authorize` });
    expect(response.statusCode, response.body).toBe(302);
    const cookie = response.cookies.find((c) => c.name === 'oauth_state');
    expect(cookie?.value).toBeTruthy();
    return {
      location: new URL(response.headers.location as string),
      stateCookie: cookie?.value ?? '',
      response,
    };
  };
  suite.callback = (provider, query, stateCookie, app = suite.t) =>
    app.app.inject({
      method: 'GET',
      url: `${AUTH}/oauth/${provider}/callback?${query}`,
      cookies: stateCookie === undefined ? {} : { oauth_state: stateCookie },
    });
  suite.googleConsent = async (location) => {
    const response = await fetch(location, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}${AUTH}/oauth/google/callback`);
    return back;
  };
  suite.googleLogin = async (claims, app = suite.t) => {
    suite.nextClaims = claims;
    const { location, stateCookie } = await suite.authorize('google', app);
    const back = await suite.googleConsent(location);
    return suite.callback('google', back.searchParams, stateCookie, app);
  };
  suite.githubLogin = async (account, app = suite.t) => {
    const { location, stateCookie } = await suite.authorize('github', app);
    const code = suite.github.issueCode(account, location);
    const query = new URLSearchParams({ code, state: location.searchParams.get('state') ?? '' });
    return suite.callback('github', query, stateCookie, app);
  };
  suite.signedIn = (response) => {
    expect(response.statusCode, response.body).toBe(302);
    expect(response.headers.location).toBe(`${PUBLIC_URL}/`);
    const cookies = Object.fromEntries(response.cookies.map((c) => [c.name, c.value]));
    expect(cookies.session).toMatch(/^[\w-]{43}$/);
    expect(cookies.csrf_token).toMatch(/^[\w-]{43}\.[\w-]{43}$/);
    return { session: cookies.session ?? '', csrf: cookies.csrf_token ?? '' };
  };
  suite.refused = (response, status = 403) => {
    expect(response.statusCode, response.body).toBe(status);
    expect(response.cookies.map((c) => c.name)).not.toContain('session');
    return JSON.parse(response.body) as { detail: string };
  };
  suite.call = async (b, method, url, body, app = suite.t) => {
    const response = await app.app.inject({
      method,
      url,
      cookies: { session: b.session, csrf_token: b.csrf },
      headers: method === 'GET' ? {} : { 'x-csrf-token': b.csrf },
      ...(body && { payload: body }),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };
  suite.me = async (b, app = suite.t) => (await suite.call(b, 'GET', `${AUTH}/me`, undefined, app)).body;
  suite.countUsers = async (app = suite.t) =>
    Number(
      (
        await app.store.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  suite.identitiesOf = (userId, app = suite.t) => identities(app, userId);
  suite.auditEntries = (action, app = suite.t) => auditRows(app, action);
  suite.watchAudit = async (app = suite.t) => {
    const seen = new Set(
      (await app.store.db.selectFrom('audit_log').select('id').execute()).map((r) => r.id),
    );
    return async (action) => (await auditRows(app, action)).filter((e) => !seen.has(e.id));
  };

  beforeAll(async () => {
    suite.google = new OAuth2Server();
    await suite.google.issuer.keys.generate('RS256');
    await suite.google.start(0, '127.0.0.1');
    // The mock signs an access token (no aud) and an ID token (aud = client id): only the latter gets the claims.
    suite.google.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
      if (token.payload.aud !== undefined) Object.assign(token.payload, suite.nextClaims);
    });
    suite.googleConfig = {
      clientId: 'google-client-id',
      clientSecret: 'google-client-secret',
      issuerUrl: suite.google.issuer.url ?? '',
    };
    suite.github = await startFakeGithub();
    suite.t = await createTestApp({
      publicUrl: PUBLIC_URL,
      oauth: { google: suite.googleConfig, github: suite.github.config },
    });
    // Signup closed, and GitHub not configured.
    suite.closed = await createTestApp({
      publicUrl: PUBLIC_URL,
      signupOpen: false,
      oauth: { google: suite.googleConfig },
    });
    ({ orgId: suite.orgId, owner: suite.owner } = await suite.t.createOrg('Acme'));
  });
  afterAll(async () => {
    await suite.t?.close();
    await suite.closed?.close();
    await suite.github?.close();
    await suite.google?.stop();
  });
  return suite;
}

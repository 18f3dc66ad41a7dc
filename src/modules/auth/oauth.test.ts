// OAuth login end to end against providers on loopback: oauth2-mock-server as Google (OpenID Connect,
// real discovery, signed ID tokens, PKCE checked) and a GitHub-shaped fake (test/support/fake-github.ts).
// The test plays the browser: it follows the redirects itself and carries the cookies.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp, uniqueEmail } from '../../../test/support/app.ts';
import {
  type FakeGithub,
  type FakeGithubAccount,
  startFakeGithub,
} from '../../../test/support/fake-github.ts';
import type { GoogleOAuthConfig } from '../../config.ts';

const AUTH = '/api/v1/auth';
const PUBLIC_URL = 'http://app.test';
const STATE_MISSING = { detail: 'OAuth sign-in state missing or expired: start the sign-in again' };
const STATE_MISMATCH = { detail: 'OAuth state mismatch: start the sign-in again' };
const DEACTIVATED = { detail: 'This account is deactivated or deleted' };
const NOT_CONFIGURED = { detail: 'OAuth provider not configured' };

type Injected = Awaited<ReturnType<TestApp['app']['inject']>>;
type Claims = { sub: string; email?: string; email_verified?: boolean | string; name?: string };

/** A signed-in browser: the cookies the callback set. */
interface Browser {
  session: string;
  csrf: string;
}

let counter = 0;
const newSub = () => `google-sub-${Date.now()}-${++counter}`;
let nextGithubId = 4_000_000;
const githubAccount = (emails: FakeGithubAccount['emails'], name: string | null = 'Grace Hopper') => ({
  id: ++nextGithubId,
  login: `gh-user-${nextGithubId}`,
  name,
  emails,
});

describe('OAuth login', () => {
  let google: OAuth2Server;
  let github: FakeGithub;
  let googleConfig: GoogleOAuthConfig;
  /** Claims of the next ID token the mock Google signs. */
  let nextClaims: Claims = { sub: 'unset' };
  let t: TestApp;
  let closed: TestApp;
  let owner: Client;
  let orgId: string;

  beforeAll(async () => {
    google = new OAuth2Server();
    await google.issuer.keys.generate('RS256');
    await google.start(0, '127.0.0.1');
    // The mock signs an access token (no aud) and an ID token (aud = client id): only the latter gets the claims.
    google.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
      if (token.payload.aud !== undefined) Object.assign(token.payload, nextClaims);
    });
    googleConfig = {
      clientId: 'google-client-id',
      clientSecret: 'google-client-secret',
      issuerUrl: google.issuer.url ?? '',
    };
    github = await startFakeGithub();
    t = await createTestApp({
      publicUrl: PUBLIC_URL,
      oauth: { google: googleConfig, github: github.config },
    });
    // Signup closed, and GitHub not configured.
    closed = await createTestApp({
      publicUrl: PUBLIC_URL,
      signupOpen: false,
      oauth: { google: googleConfig },
    });
    ({ orgId, owner } = await t.createOrg('Acme'));
  });
  afterAll(async () => {
    await t?.close();
    await closed?.close();
    await github?.close();
    await google?.stop();
  });

  async function authorize(provider: string, app = t) {
    const response = await app.app.inject({ method: 'GET', url: `${AUTH}/oauth/${provider}/authorize` });
    expect(response.statusCode, response.body).toBe(302);
    const cookie = response.cookies.find((c) => c.name === 'oauth_state');
    expect(cookie?.value).toBeTruthy();
    return {
      location: new URL(response.headers.location as string),
      stateCookie: cookie?.value ?? '',
      response,
    };
  }

  async function callback(provider: string, query: URLSearchParams, stateCookie?: string, app = t) {
    return app.app.inject({
      method: 'GET',
      url: `${AUTH}/oauth/${provider}/callback?${query}`,
      cookies: stateCookie === undefined ? {} : { oauth_state: stateCookie },
    });
  }

  /** Google's side: its /authorize (no consent page in the mock) redirects back with code and state. */
  async function googleConsent(location: URL): Promise<URL> {
    const response = await fetch(location, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}${AUTH}/oauth/google/callback`);
    return back;
  }

  async function googleLogin(claims: Claims, app = t): Promise<Injected> {
    nextClaims = claims;
    const { location, stateCookie } = await authorize('google', app);
    const back = await googleConsent(location);
    return callback('google', back.searchParams, stateCookie, app);
  }

  async function githubLogin(account: FakeGithubAccount, app = t): Promise<Injected> {
    const { location, stateCookie } = await authorize('github', app);
    const code = github.issueCode(account, location);
    const query = new URLSearchParams({ code, state: location.searchParams.get('state') ?? '' });
    return callback('github', query, stateCookie, app);
  }

  /** The callback signed the browser in: 302 to the web application with the two session cookies. */
  function signedIn(response: Injected): Browser {
    expect(response.statusCode, response.body).toBe(302);
    expect(response.headers.location).toBe(`${PUBLIC_URL}/`);
    const cookies = Object.fromEntries(response.cookies.map((c) => [c.name, c.value]));
    expect(cookies.session).toMatch(/^[\w-]{43}$/);
    expect(cookies.csrf_token).toMatch(/^[\w-]{43}\.[\w-]{43}$/);
    return { session: cookies.session ?? '', csrf: cookies.csrf_token ?? '' };
  }

  function refused(response: Injected, status = 403) {
    expect(response.statusCode, response.body).toBe(status);
    expect(response.cookies.map((c) => c.name)).not.toContain('session');
    return JSON.parse(response.body) as { detail: string };
  }

  async function call(b: Browser, method: 'GET' | 'PATCH', url: string, body?: object, app = t) {
    const response = await app.app.inject({
      method,
      url,
      cookies: { session: b.session, csrf_token: b.csrf },
      headers: method === 'GET' ? {} : { 'x-csrf-token': b.csrf },
      ...(body && { payload: body }),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  }

  const me = async (b: Browser, app = t) => (await call(b, 'GET', `${AUTH}/me`, undefined, app)).body;

  const countUsers = async (app = t) =>
    Number(
      (
        await app.store.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  const identitiesOf = (userId: string, app = t) =>
    app.store.db.selectFrom('oauth_identities').selectAll().where('user_id', '=', userId).execute();

  /** Audit entries with this action, from the store (anonymous failures belong to no organization). */
  const auditEntries = (action: string, app = t) =>
    app.store.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

  /** Marks the audit trail now; the function returned gives the entries of an action written since. */
  async function watchAudit(app = t) {
    const seen = new Set(
      (await app.store.db.selectFrom('audit_log').select('id').execute()).map((r) => r.id),
    );
    return async (action: string) => (await auditEntries(action, app)).filter((e) => !seen.has(e.id));
  }

  it('sends the browser to Google with state, nonce and PKCE S256, the checks sealed in a cookie', async () => {
    const { location, response } = await authorize('google');
    expect(`${location.origin}${location.pathname}`).toBe(`${google.issuer.url}/authorize`);
    const q = location.searchParams;
    expect(q.get('client_id')).toBe('google-client-id');
    expect(q.get('response_type')).toBe('code');
    expect(q.get('redirect_uri')).toBe(`${PUBLIC_URL}${AUTH}/oauth/google/callback`);
    expect(q.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(q.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(q.get('nonce')).toMatch(/^[\w-]{20,}$/);

    const setCookie = response.headers['set-cookie'] as string;
    const attributes = setCookie.split(';').map((part) => part.trim().toLowerCase());
    expect(attributes).toEqual(
      expect.arrayContaining(['httponly', 'samesite=lax', 'path=/api/v1/auth/oauth', 'max-age=600']),
    );
    // Sealed: neither the state nor anything else readable travels in the clear.
    const value = response.cookies.find((c) => c.name === 'oauth_state')?.value ?? '';
    expect(value).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(Buffer.from(value.split('.')[2] ?? '', 'base64url').toString('latin1')).not.toContain(
      q.get('state') ?? '',
    );
    // A fresh state every time.
    expect((await authorize('google')).location.searchParams.get('state')).not.toBe(q.get('state'));
  });

  it('creates an organization (Starter) and its owner at the first Google login, and the session works', async () => {
    const email = uniqueEmail('ada');
    const before = await countUsers();
    nextClaims = { sub: newSub(), email, email_verified: true, name: 'Ada Lovelace' };
    const { location, stateCookie } = await authorize('google');
    let verifier = '';
    google.service.once('beforeResponse', (_response: unknown, req: { body: Record<string, string> }) => {
      verifier = req.body.code_verifier ?? '';
    });
    const response = await callback('google', (await googleConsent(location)).searchParams, stateCookie);
    const browser = signedIn(response);
    // PKCE: the verifier sent to the token endpoint matches the challenge of the redirect (RFC 7636 S256).
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(
      location.searchParams.get('code_challenge'),
    );
    // The state cookie is spent.
    const cleared = response.cookies.find((c) => c.name === 'oauth_state');
    expect(cleared?.value).toBe('');
    expect(cleared?.path).toBe('/api/v1/auth/oauth');

    const user = await me(browser);
    expect(user).toMatchObject({ email, name: 'Ada Lovelace', org_role: 'owner', active: true });
    expect(await countUsers()).toBe(before + 1);
    const org = await call(browser, 'GET', '/api/v1/orgs/current');
    expect(org.body).toMatchObject({ name: 'Ada Lovelace', plan: 'starter' });
    expect(org.body.id).not.toBe(orgId);
    // No password: only the provider signs this user in.
    const row = await t.store.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toBeNull();
    expect(await identitiesOf(user.id)).toEqual([
      expect.objectContaining({ provider: 'google', email, user_id: user.id }),
    ]);
    // A mutating call with the CSRF token of this session.
    const renamed = await call(browser, 'PATCH', `${AUTH}/me`, { name: 'Countess Lovelace' });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'Countess Lovelace' } });

    const logins = (await auditEntries('auth.login')).filter((e) => e.target_id === user.id);
    expect(logins[0]).toMatchObject({
      outcome: 'success',
      details: expect.objectContaining({ method: 'google' }),
    });
    const links = (await auditEntries('auth.oauth.link')).filter((e) => e.target_id === user.id);
    expect(links).toEqual([
      expect.objectContaining({ outcome: 'success', details: { provider: 'google', via: 'signup' } }),
    ]);
  });

  it('signs in again by the Google subject, whatever the e-mail says now', async () => {
    const sub = newSub();
    const email = uniqueEmail('again');
    const first = await me(signedIn(await googleLogin({ sub, email, email_verified: true, name: 'Again' })));
    const before = await countUsers();
    // The e-mail changed at Google and is not even verified: the subject is what counts.
    const second = await me(
      signedIn(await googleLogin({ sub, email: uniqueEmail('changed'), email_verified: false })),
    );
    expect(second.id).toBe(first.id);
    expect(second.email).toBe(email);
    expect(await countUsers()).toBe(before);
    expect(await identitiesOf(first.id)).toHaveLength(1);
  });

  it('links a first login to the existing user with the same provider-verified e-mail', async () => {
    const member = await t.createUser(orgId, 'member');
    const sub = newSub();
    const before = await countUsers();
    const browser = signedIn(
      await googleLogin({
        sub,
        email: member.user.email.toUpperCase(),
        email_verified: true,
        name: 'Other Name',
      }),
    );
    const user = await me(browser);
    expect(user).toMatchObject({
      id: member.user.id,
      email: member.user.email,
      org_role: 'member',
      name: 'A member',
    });
    expect(await countUsers()).toBe(before);
    expect(await identitiesOf(member.user.id)).toEqual([
      expect.objectContaining({ provider: 'google', provider_user_id: sub }),
    ]);
    const audit = await owner.get('/api/v1/audit?action=auth.oauth.link');
    expect(audit.status).toBe(200);
    expect(audit.body.items).toContainEqual(
      expect.objectContaining({
        target_id: member.user.id,
        details: { provider: 'google', via: 'verified_email' },
      }),
    );
    // The password still works too: linking adds a way in, it takes none away.
    expect((await t.login(member.user.email)).user.id).toBe(member.user.id);
  });

  it('refuses an unverified e-mail at a first login: no user created, no link to the user with that e-mail', async () => {
    const member = await t.createUser(orgId, 'member');
    const before = await countUsers();
    const audited = await watchAudit();
    for (const claims of [
      { sub: newSub(), email: member.user.email, email_verified: false },
      { sub: newSub(), email: uniqueEmail('unverified'), email_verified: false },
      { sub: newSub(), email: uniqueEmail('no-claim') },
      { sub: newSub() },
    ]) {
      const body = refused(await googleLogin(claims));
      expect(body.detail).toBe(
        'Google did not give a verified e-mail address for this account; verify it at Google and sign in again',
      );
    }
    expect(await countUsers()).toBe(before);
    expect(await identitiesOf(member.user.id)).toEqual([]);
    const failures = await audited('auth.login');
    expect(failures).toHaveLength(4);
    for (const failure of failures) {
      expect(failure).toMatchObject({
        outcome: 'failure',
        details: { method: 'google', reason: 'email_unverified' },
      });
    }
  });

  it('takes the primary and verified GitHub e-mail among several, with PKCE checked by the provider', async () => {
    const primary = uniqueEmail('primary');
    const account = githubAccount([
      { email: uniqueEmail('secondary'), primary: false, verified: true },
      { email: primary, primary: true, verified: true },
      { email: uniqueEmail('unverified'), primary: false, verified: false },
    ]);
    const { location, stateCookie } = await authorize('github');
    expect(`${location.origin}${location.pathname}`).toBe(github.config.authorizeUrl);
    expect(location.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}${AUTH}/oauth/github/callback`);
    expect(location.searchParams.get('scope')).toContain('user:email');
    const code = github.issueCode(account, location);
    const response = await callback(
      'github',
      new URLSearchParams({ code, state: location.searchParams.get('state') ?? '' }),
      stateCookie,
    );
    const user = await me(signedIn(response));
    expect(user).toMatchObject({ email: primary, name: 'Grace Hopper', org_role: 'owner' });
    expect(await identitiesOf(user.id)).toEqual([
      expect.objectContaining({ provider: 'github', provider_user_id: String(account.id), email: primary }),
    ]);
    const sent = github.tokenRequests.at(-1);
    expect(sent?.get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
    expect(sent?.get('redirect_uri')).toBe(`${PUBLIC_URL}${AUTH}/oauth/github/callback`);

    // Second time, by GitHub's user id, even with no verified e-mail left.
    account.emails = [{ email: primary, primary: true, verified: false }];
    expect((await me(signedIn(await githubLogin(account)))).id).toBe(user.id);
  });

  it('refuses a GitHub account without a primary verified e-mail', async () => {
    const before = await countUsers();
    for (const emails of [
      [
        { email: uniqueEmail('p'), primary: true, verified: false },
        { email: uniqueEmail('v'), primary: false, verified: true },
      ],
      [],
    ]) {
      const body = refused(await githubLogin(githubAccount(emails)));
      expect(body.detail).toBe(
        'GitHub did not give a verified e-mail address for this account; verify it at GitHub and sign in again',
      );
    }
    expect(await countUsers()).toBe(before);
  });

  it('refuses a code GitHub will not redeem (wrong PKCE verifier)', async () => {
    const account = githubAccount([{ email: uniqueEmail('pkce'), primary: true, verified: true }]);
    const first = await authorize('github');
    const second = await authorize('github');
    // The code belongs to the first authorization's challenge; the second's cookie holds another verifier.
    const code = github.issueCode(account, first.location);
    const query = new URLSearchParams({ code, state: second.location.searchParams.get('state') ?? '' });
    const body = refused(await callback('github', query, second.stateCookie));
    expect(body.detail).toBe('GitHub did not confirm this sign-in (code_rejected)');
  });

  it('refuses a state mismatch, and a state cookie of the other provider', async () => {
    const account = githubAccount([{ email: uniqueEmail('state'), primary: true, verified: true }]);
    const audited = await watchAudit();
    const { location, stateCookie } = await authorize('github');
    const code = github.issueCode(account, location);
    const response = await callback(
      'github',
      new URLSearchParams({ code, state: 'not-the-state' }),
      stateCookie,
    );
    expect(refused(response)).toEqual(STATE_MISMATCH);
    expect(response.cookies.find((c) => c.name === 'oauth_state')?.value).toBe('');
    // No state at all.
    expect(refused(await callback('github', new URLSearchParams({ code }), stateCookie))).toEqual(
      STATE_MISMATCH,
    );

    // Google's state and cookie replayed at the GitHub callback.
    nextClaims = { sub: newSub(), email: uniqueEmail('cross'), email_verified: true };
    const g = await authorize('google');
    const back = await googleConsent(g.location);
    expect(refused(await callback('github', back.searchParams, g.stateCookie))).toEqual(STATE_MISMATCH);

    const failures = await audited('auth.login');
    expect(failures.map((e) => [e.outcome, e.details])).toEqual(
      Array(3).fill(['failure', { method: 'github', reason: 'state_mismatch' }]),
    );
    expect(JSON.stringify(failures)).not.toContain(back.searchParams.get('code') ?? '');
    expect(JSON.stringify(failures)).not.toContain(code);
  });

  it('refuses a callback without the state cookie, with a tampered one, and after ten minutes', async () => {
    nextClaims = { sub: newSub(), email: uniqueEmail('nocookie'), email_verified: true };
    const audited = await watchAudit();
    const { location, stateCookie } = await authorize('google');
    const back = await googleConsent(location);
    expect(refused(await callback('google', back.searchParams))).toEqual(STATE_MISSING);
    const [v, iv, body = ''] = stateCookie.split('.');
    const tampered = `${v}.${iv}.${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.slice(-1)}`;
    expect(refused(await callback('google', back.searchParams, tampered))).toEqual(STATE_MISSING);

    const late = await authorize('google');
    const lateBack = await googleConsent(late.location);
    t.advance(10 * 60_000 + 1_000);
    try {
      expect(refused(await callback('google', lateBack.searchParams, late.stateCookie))).toEqual(
        STATE_MISSING,
      );
    } finally {
      t.advance(-(10 * 60_000 + 1_000));
    }
    expect((await audited('auth.login')).map((e) => [e.outcome, e.details])).toEqual(
      Array(3).fill(['failure', { method: 'google', reason: 'state_missing' }]),
    );
  });

  it('refuses denied consent', async () => {
    const audited = await watchAudit();
    const { location, stateCookie } = await authorize('google');
    const query = new URLSearchParams({
      error: 'access_denied',
      error_description: 'The user denied the request',
      state: location.searchParams.get('state') ?? '',
    });
    const body = refused(await callback('google', query, stateCookie));
    expect(body.detail).toBe('Sign-in with Google was cancelled: consent was denied (access_denied)');
    expect(await audited('auth.login')).toEqual([
      expect.objectContaining({
        outcome: 'failure',
        details: { method: 'google', reason: 'access_denied', provider_error: 'access_denied' },
      }),
    ]);
  });

  it('refuses deactivated and deleted users, linked or matched by e-mail', async () => {
    const member = await t.createUser(orgId, 'member');
    const sub = newSub();
    signedIn(await googleLogin({ sub, email: member.user.email, email_verified: true }));
    expect((await owner.patch(`/api/v1/users/${member.user.id}`, { active: false })).status).toBe(200);
    expect(refused(await googleLogin({ sub }))).toEqual(DEACTIVATED);

    // Not linked yet, found by its verified e-mail: refused too, and not linked.
    const other = await t.createUser(orgId, 'member');
    expect((await owner.patch(`/api/v1/users/${other.user.id}`, { active: false })).status).toBe(200);
    expect(
      refused(await googleLogin({ sub: newSub(), email: other.user.email, email_verified: true })),
    ).toEqual(DEACTIVATED);
    expect(await identitiesOf(other.user.id)).toEqual([]);

    const account = githubAccount([{ email: uniqueEmail('deleted'), primary: true, verified: true }]);
    const gone = await me(signedIn(await githubLogin(account)));
    const goneOwner = await t.login(gone.email).catch(() => null);
    expect(goneOwner).toBeNull(); // no password: the provider is the only way in
    await t.store.db.updateTable('users').set({ deleted_at: t.now() }).where('id', '=', gone.id).execute();
    const audited = await watchAudit();
    expect(refused(await githubLogin(account))).toEqual(DEACTIVATED);

    expect(await audited('auth.login')).toEqual([
      expect.objectContaining({
        outcome: 'failure',
        target_id: gone.id,
        details: { method: 'github', reason: 'deactivated' },
      }),
    ]);
  });

  it('with signup closed, refuses a new user but signs in existing and linked users', async () => {
    const { orgId: closedOrg } = await closed.createOrg('Closed Inc');
    const before = await countUsers(closed);
    const audited = await watchAudit(closed);
    const body = refused(
      await googleLogin({ sub: newSub(), email: uniqueEmail('new'), email_verified: true }, closed),
    );
    expect(body.detail).toBe(
      'Signup is closed: no account here matches this Google account; ask an administrator to invite you',
    );
    expect(await countUsers(closed)).toBe(before);

    const member = await closed.createUser(closedOrg, 'member');
    const sub = newSub();
    const linked = await me(
      signedIn(await googleLogin({ sub, email: member.user.email, email_verified: true }, closed)),
      closed,
    );
    expect(linked.id).toBe(member.user.id);
    const again = await me(signedIn(await googleLogin({ sub }, closed)), closed);
    expect(again.id).toBe(member.user.id);
    const failures = (await audited('auth.login')).filter((e) => e.outcome === 'failure');
    expect(failures.map((e) => e.details)).toEqual([{ method: 'google', reason: 'signup_closed' }]);
  });

  it('answers 404 for a provider without configuration and 422 for an unknown provider name', async () => {
    for (const step of ['authorize', 'callback']) {
      const response = await closed.app.inject({ method: 'GET', url: `${AUTH}/oauth/github/${step}` });
      expect(response.statusCode).toBe(404);
      expect(JSON.parse(response.body)).toEqual(NOT_CONFIGURED);
      expect(response.cookies).toEqual(step === 'authorize' ? [] : [expect.objectContaining({ value: '' })]);
    }
    const unknown = await t.app.inject({ method: 'GET', url: `${AUTH}/oauth/facebook/authorize` });
    expect(unknown.statusCode).toBe(422);
    expect(JSON.parse(unknown.body).detail).toEqual([expect.objectContaining({ loc: ['path', 'provider'] })]);
  });

  it('answers 502 when the provider answers garbage or cannot be reached', async () => {
    const account = githubAccount([{ email: uniqueEmail('garbage'), primary: true, verified: true }]);
    const GITHUB_DOWN = { detail: 'OAuth provider GitHub is unreachable or answered an invalid response' };
    const audited = await watchAudit();
    github.answerNext('token', 200, '<html>not json</html>');
    expect(refused(await githubLogin(account), 502)).toEqual(GITHUB_DOWN);
    github.answerNext('user', 500, '{"message":"boom"}');
    expect(refused(await githubLogin(account), 502)).toEqual(GITHUB_DOWN);
    github.answerNext('emails', 200, '{"not":"a list"}');
    expect(refused(await githubLogin(account), 502)).toEqual(GITHUB_DOWN);
    expect((await audited('auth.login')).map((e) => e.details.step)).toEqual(
      expect.arrayContaining(['token_not_json', 'user_status_500', 'emails_not_list']),
    );
    for (const entry of await audited('auth.login')) {
      expect(entry).toMatchObject({
        outcome: 'failure',
        details: { method: 'github', reason: 'provider_unavailable' },
      });
    }

    // Google's token endpoint answering an error that is not about the code.
    nextClaims = { sub: newSub(), email: uniqueEmail('g502'), email_verified: true };
    google.service.once('beforeResponse', (response: { statusCode: number; body: unknown }) => {
      response.statusCode = 500;
      response.body = { error: 'server_error' };
    });
    const { location, stateCookie } = await authorize('google');
    const back = await googleConsent(location);
    expect(refused(await callback('google', back.searchParams, stateCookie), 502)).toEqual({
      detail: 'OAuth provider Google is unreachable or answered an invalid response',
    });

    // A Google issuer nobody listens on: the authorize step cannot even discover it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const down = await createTestApp({
      publicUrl: PUBLIC_URL,
      oauth: { google: { ...googleConfig, issuerUrl: `http://127.0.0.1:${port}` } },
    });
    try {
      const response = await down.app.inject({ method: 'GET', url: `${AUTH}/oauth/google/authorize` });
      expect(response.statusCode).toBe(502);
      expect(JSON.parse(response.body)).toEqual({
        detail: 'OAuth provider Google is unreachable or answered an invalid response',
      });
      expect(response.cookies).toEqual([]);
      const warning = down.logs.find((line) => line.includes('OAuth provider failure'));
      expect(warning).toContain('unavailable: discovery_failed');
    } finally {
      await down.close();
    }
  });

  it('refuses an ID token that is not for this sign-in (another nonce)', async () => {
    nextClaims = { sub: newSub(), email: uniqueEmail('nonce'), email_verified: true };
    const before = await countUsers();
    const { location, stateCookie } = await authorize('google');
    // The same authorization request, but the code is issued for another nonce (an injected code).
    const forged = new URL(location);
    forged.searchParams.set('nonce', 'another-nonce-from-another-sign-in');
    const back = await googleConsent(forged);
    const body = refused(await callback('google', back.searchParams, stateCookie));
    expect(body.detail).toBe('Google did not confirm this sign-in (id_token_mismatch)');
    expect(await countUsers()).toBe(before);
  });

  it('sends a user with 2FA to the 2FA step with the partial token in the fragment, and no session', async () => {
    const member = await t.createUser(orgId, 'member');
    const setup = await member.post(`${AUTH}/2fa/setup`);
    expect(setup.status).toBe(200);
    const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret), digits: 6, period: 30 });
    const enabled = await member.post(`${AUTH}/2fa/enable`, {
      code: totp.generate({ timestamp: t.now().getTime() }),
    });
    expect(enabled.status).toBe(200);

    const audited = await watchAudit();
    const response = await googleLogin({ sub: newSub(), email: member.user.email, email_verified: true });
    expect(response.statusCode).toBe(302);
    const location = new URL(response.headers.location as string);
    expect(`${location.origin}${location.pathname}${location.search}`).toBe(`${PUBLIC_URL}/login/2fa`);
    const partialToken = new URLSearchParams(location.hash.slice(1)).get('partial_token') ?? '';
    expect(partialToken).not.toBe('');
    expect(response.cookies.map((c) => c.name)).toEqual(['oauth_state']); // only its clearing

    const second = await t.app.inject({
      method: 'POST',
      url: `${AUTH}/login/2fa`,
      payload: { partial_token: partialToken, code: enabled.body.recovery_codes[0] },
    });
    expect(second.statusCode, second.body).toBe(200);
    expect(JSON.parse(second.body).user.id).toBe(member.user.id);
    // One login, after the second factor, with the first factor it started from.
    expect(await audited('auth.login')).toEqual([
      expect.objectContaining({
        outcome: 'success',
        target_id: member.user.id,
        details: expect.objectContaining({ method: 'google', second_factor: 'recovery_code' }),
      }),
    ]);
  });

  it('a purge removes the identities of the user', async () => {
    const member = await t.createUser(orgId, 'member');
    signedIn(await googleLogin({ sub: newSub(), email: member.user.email, email_verified: true }));
    expect(await identitiesOf(member.user.id)).toHaveLength(1);
    expect((await owner.delete(`/api/v1/users/${member.user.id}`)).status).toBe(204);
    expect((await owner.post(`/api/v1/admin/users/${member.user.id}/purge`)).status).toBe(200);
    expect(await identitiesOf(member.user.id)).toEqual([]);
  });

  it('writes no code, state, token or cookie value to the log', async () => {
    const account = githubAccount([{ email: uniqueEmail('logs'), primary: true, verified: true }]);
    const { location, stateCookie } = await authorize('github');
    const code = github.issueCode(account, location);
    const state = location.searchParams.get('state') ?? '';
    const response = await callback('github', new URLSearchParams({ code, state }), stateCookie);
    const browser = signedIn(response);
    const logs = t.logs.join('\n');
    expect(logs).toContain('/api/v1/auth/oauth/github/callback');
    for (const secret of [
      code,
      state,
      stateCookie,
      browser.session,
      browser.csrf,
      github.issuedTokens.at(-1) ?? '',
    ]) {
      expect(secret.length).toBeGreaterThan(10);
      expect(logs).not.toContain(secret);
    }
  });
});

// OAuth login end to end against providers on loopback (test/support/oauth-suite.ts): the redirect
// to Google with state, nonce and PKCE, the first login creating an organization and its owner,
// signing in again by the provider's subject, linking by a provider-verified e-mail, GitHub's
// primary verified e-mail, and the first refusals (unverified e-mail, no usable GitHub e-mail, a
// code the provider will not redeem). State, denial, deactivation, signup, errors and secrets:
// oauth.refusals.test.ts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../../../test/support/app.ts';
import { AUTH, githubAccount, newSub, oauthSuite, PUBLIC_URL } from '../../../test/support/oauth-suite.ts';

describe('OAuth login', () => {
  const suite = oauthSuite();
  const {
    authorize,
    callback,
    googleConsent,
    googleLogin,
    githubLogin,
    signedIn,
    refused,
    call,
    me,
    countUsers,
    identitiesOf,
    auditEntries,
    watchAudit,
  } = suite;

  it('sends the browser to Google with state, nonce and PKCE S256, the checks sealed in a cookie', async () => {
    const { location, response } = await authorize('google');
    expect(`${location.origin}${location.pathname}`).toBe(`${suite.google.issuer.url}/authorize`);
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
    suite.nextClaims = { sub: newSub(), email, email_verified: true, name: 'Ada Lovelace' };
    const { location, stateCookie } = await authorize('google');
    let verifier = '';
    suite.google.service.once(
      'beforeResponse',
      (_response: unknown, req: { body: Record<string, string> }) => {
        verifier = req.body.code_verifier ?? '';
      },
    );
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
    expect(org.body.id).not.toBe(suite.orgId);
    // No password: only the provider signs this user in.
    const row = await suite.t.store.db
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
    const member = await suite.t.createUser(suite.orgId, 'member');
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
    const audit = await suite.owner.get('/api/v1/audit?action=auth.oauth.link');
    expect(audit.status).toBe(200);
    expect(audit.body.items).toContainEqual(
      expect.objectContaining({
        target_id: member.user.id,
        details: { provider: 'google', via: 'verified_email' },
      }),
    );
    // The password still works too: linking adds a way in, it takes none away.
    expect((await suite.t.login(member.user.email)).user.id).toBe(member.user.id);
  });

  it('refuses an unverified e-mail at a first login: no user created, no link to the user with that e-mail', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
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
    expect(`${location.origin}${location.pathname}`).toBe(suite.github.config.authorizeUrl);
    expect(location.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}${AUTH}/oauth/github/callback`);
    expect(location.searchParams.get('scope')).toContain('user:email');
    const code = suite.github.issueCode(account, location);
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
    const sent = suite.github.tokenRequests.at(-1);
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
    const code = suite.github.issueCode(account, first.location);
    const query = new URLSearchParams({ code, state: second.location.searchParams.get('state') ?? '' });
    const body = refused(await callback('github', query, second.stateCookie));
    expect(body.detail).toBe('GitHub did not confirm this sign-in (code_rejected)');
  });
});

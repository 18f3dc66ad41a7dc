import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { createTestApp, uniqueEmail } from '../../../test/support/app.ts';
import { AUTH, githubAccount, newSub, oauthSuite, PUBLIC_URL } from '../../../test/support/oauth-suite.ts';

const STATE_MISSING = { detail: 'OAuth sign-in state missing or expired: start the sign-in again' };
const STATE_MISMATCH = { detail: 'OAuth state mismatch: start the sign-in again' };
const DEACTIVATED = { detail: 'This account is deactivated or deleted' };
const NOT_CONFIGURED = { detail: 'OAuth provider not configured' };

describe('OAuth login: refusals and edges', () => {
  const suite = oauthSuite();
  const {
    authorize,
    callback,
    googleConsent,
    googleLogin,
    githubLogin,
    signedIn,
    refused,
    me,
    countUsers,
    identitiesOf,
    watchAudit,
  } = suite;

  it('refuses a state mismatch, and a state cookie of the other provider', async () => {
    const account = githubAccount([{ email: uniqueEmail('state'), primary: true, verified: true }]);
    const audited = await watchAudit();
    const { location, stateCookie } = await authorize('github');
    const code = suite.github.issueCode(account, location);
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
    suite.nextClaims = { sub: newSub(), email: uniqueEmail('cross'), email_verified: true };
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
    suite.nextClaims = { sub: newSub(), email: uniqueEmail('nocookie'), email_verified: true };
    const audited = await watchAudit();
    const { location, stateCookie } = await authorize('google');
    const back = await googleConsent(location);
    expect(refused(await callback('google', back.searchParams))).toEqual(STATE_MISSING);
    const [v, iv, body = ''] = stateCookie.split('.');
    const tampered = `${v}.${iv}.${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.slice(-1)}`;
    expect(refused(await callback('google', back.searchParams, tampered))).toEqual(STATE_MISSING);

    const late = await authorize('google');
    const lateBack = await googleConsent(late.location);
    suite.t.advance(10 * 60_000 + 1_000);
    try {
      expect(refused(await callback('google', lateBack.searchParams, late.stateCookie))).toEqual(
        STATE_MISSING,
      );
    } finally {
      suite.t.advance(-(10 * 60_000 + 1_000));
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
    const member = await suite.t.createUser(suite.orgId, 'member');
    const sub = newSub();
    signedIn(await googleLogin({ sub, email: member.user.email, email_verified: true }));
    expect((await suite.owner.patch(`/api/v1/users/${member.user.id}`, { active: false })).status).toBe(200);
    expect(refused(await googleLogin({ sub }))).toEqual(DEACTIVATED);

    // Not linked yet, found by its verified e-mail: refused too, and not linked.
    const other = await suite.t.createUser(suite.orgId, 'member');
    expect((await suite.owner.patch(`/api/v1/users/${other.user.id}`, { active: false })).status).toBe(200);
    expect(
      refused(await googleLogin({ sub: newSub(), email: other.user.email, email_verified: true })),
    ).toEqual(DEACTIVATED);
    expect(await identitiesOf(other.user.id)).toEqual([]);

    const account = githubAccount([{ email: uniqueEmail('deleted'), primary: true, verified: true }]);
    const gone = await me(signedIn(await githubLogin(account)));
    const goneOwner = await suite.t.login(gone.email).catch(() => null);
    expect(goneOwner).toBeNull(); // no password: the provider is the only way in
    await suite.t.store.db
      .updateTable('users')
      .set({ deleted_at: suite.t.now() })
      .where('id', '=', gone.id)
      .execute();
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
    const { orgId: closedOrg } = await suite.closed.createOrg('Closed Inc');
    const before = await countUsers(suite.closed);
    const audited = await watchAudit(suite.closed);
    const body = refused(
      await googleLogin({ sub: newSub(), email: uniqueEmail('new'), email_verified: true }, suite.closed),
    );
    expect(body.detail).toBe(
      'Signup is closed: no account here matches this Google account; ask an administrator to invite you',
    );
    expect(await countUsers(suite.closed)).toBe(before);

    const member = await suite.closed.createUser(closedOrg, 'member');
    const sub = newSub();
    const linked = await me(
      signedIn(await googleLogin({ sub, email: member.user.email, email_verified: true }, suite.closed)),
      suite.closed,
    );
    expect(linked.id).toBe(member.user.id);
    const again = await me(signedIn(await googleLogin({ sub }, suite.closed)), suite.closed);
    expect(again.id).toBe(member.user.id);
    const failures = (await audited('auth.login')).filter((e) => e.outcome === 'failure');
    expect(failures.map((e) => e.details)).toEqual([{ method: 'google', reason: 'signup_closed' }]);
  });

  it('answers 404 for a provider without configuration and 422 for an unknown provider name', async () => {
    for (const step of ['authorize', 'callback']) {
      const response = await suite.closed.app.inject({ method: 'GET', url: `${AUTH}/oauth/github/${step}` });
      expect(response.statusCode).toBe(404);
      expect(JSON.parse(response.body)).toEqual(NOT_CONFIGURED);
      expect(response.cookies).toEqual(step === 'authorize' ? [] : [expect.objectContaining({ value: '' })]);
    }
    const unknown = await suite.t.app.inject({ method: 'GET', url: `${AUTH}/oauth/facebook/authorize` });
    expect(unknown.statusCode).toBe(422);
    expect(JSON.parse(unknown.body).detail).toEqual([expect.objectContaining({ loc: ['path', 'provider'] })]);
  });

  it('answers 502 when the provider answers garbage or cannot be reached', async () => {
    const account = githubAccount([{ email: uniqueEmail('garbage'), primary: true, verified: true }]);
    const GITHUB_DOWN = { detail: 'OAuth provider GitHub is unreachable or answered an invalid response' };
    const audited = await watchAudit();
    suite.github.answerNext('token', 200, '<html>not json</html>');
    expect(refused(await githubLogin(account), 502)).toEqual(GITHUB_DOWN);
    suite.github.answerNext('user', 500, '{"message":"boom"}');
    expect(refused(await githubLogin(account), 502)).toEqual(GITHUB_DOWN);
    suite.github.answerNext('emails', 200, '{"not":"a list"}');
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
    suite.nextClaims = { sub: newSub(), email: uniqueEmail('g502'), email_verified: true };
    suite.google.service.once('beforeResponse', (response: { statusCode: number; body: unknown }) => {
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
      oauth: { google: { ...suite.googleConfig, issuerUrl: `http://127.0.0.1:${port}` } },
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
    suite.nextClaims = { sub: newSub(), email: uniqueEmail('nonce'), email_verified: true };
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
    const member = await suite.t.createUser(suite.orgId, 'member');
    const setup = await member.post(`${AUTH}/2fa/setup`);
    expect(setup.status).toBe(200);
    const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret), digits: 6, period: 30 });
    const enabled = await member.post(`${AUTH}/2fa/enable`, {
      code: totp.generate({ timestamp: suite.t.now().getTime() }),
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

    const second = await suite.t.app.inject({
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
    const member = await suite.t.createUser(suite.orgId, 'member');
    signedIn(await googleLogin({ sub: newSub(), email: member.user.email, email_verified: true }));
    expect(await identitiesOf(member.user.id)).toHaveLength(1);
    expect((await suite.owner.delete(`/api/v1/users/${member.user.id}`)).status).toBe(204);
    expect((await suite.owner.post(`/api/v1/admin/users/${member.user.id}/purge`)).status).toBe(200);
    expect(await identitiesOf(member.user.id)).toEqual([]);
  });

  it('writes no code, state, token or cookie value to the log', async () => {
    const account = githubAccount([{ email: uniqueEmail('logs'), primary: true, verified: true }]);
    const { location, stateCookie } = await authorize('github');
    const code = suite.github.issueCode(account, location);
    const state = location.searchParams.get('state') ?? '';
    const response = await callback('github', new URLSearchParams({ code, state }), stateCookie);
    const browser = signedIn(response);
    const logs = suite.t.logs.join('\n');
    // The callback was logged (by its route, which holds no query), and none of its values were.
    expect(logs).toContain('/api/v1/auth/oauth/:provider/callback');
    for (const secret of [
      code,
      state,
      stateCookie,
      browser.session,
      browser.csrf,
      suite.github.issuedTokens.at(-1) ?? '',
    ]) {
      expect(secret.length).toBeGreaterThan(10);
      expect(logs).not.toContain(secret);
    }
  });
});

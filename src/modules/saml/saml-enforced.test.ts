// Enforced SAML: the organization's users sign in through its identity provider only, its owners
// excepted (break-glass). Password, the 2FA step and OAuth (against the GitHub-shaped fake) are tried.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, TEST_PASSWORD, type TestApp } from '../../../test/support/app.ts';
import { type FakeGithub, startFakeGithub } from '../../../test/support/fake-github.ts';
import {
  IDP_CERTIFICATE,
  IDP_ENTITY_ID,
  IDP_SSO_URL,
  readAuthnRequest,
  samlResponse,
} from '../../../test/support/saml-idp.ts';

const PUBLIC_URL = 'http://127.0.0.1:8000';
const FIELDS = { idp_entity_id: IDP_ENTITY_ID, idp_sso_url: IDP_SSO_URL, idp_certificate: IDP_CERTIFICATE };

describe('enforced SAML', () => {
  let t: TestApp;
  let github: FakeGithub;
  let orgId: string;
  let owner: Client;
  let admin: Client;
  let member: Client;
  let githubId = 7_000_000;

  beforeAll(async () => {
    github = await startFakeGithub();
    t = await createTestApp({ publicUrl: PUBLIC_URL, oauth: { github: github.config } });
    ({ orgId, owner } = await t.createOrg());
    admin = await t.createUser(orgId, 'admin');
    member = await t.createUser(orgId, 'member');
    expect((await owner.put('/api/v1/admin/saml', { ...FIELDS, enforced: true })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await github?.close();
  });

  const passwordLogin = (email: string, password = TEST_PASSWORD) =>
    t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });

  async function githubLogin(email: string) {
    const authorize = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oauth/github/authorize' });
    expect(authorize.statusCode).toBe(302);
    const location = new URL(String(authorize.headers.location));
    const stateCookie = authorize.cookies.find((c) => c.name === 'oauth_state')?.value ?? '';
    const code = github.issueCode(
      {
        id: ++githubId,
        login: `gh-${githubId}`,
        name: null,
        emails: [{ email, primary: true, verified: true }],
      },
      location,
    );
    const query = new URLSearchParams({ code, state: location.searchParams.get('state') ?? '' });
    return t.app.inject({
      method: 'GET',
      url: `/api/v1/auth/oauth/github/callback?${query}`,
      cookies: { oauth_state: stateCookie },
    });
  }

  it('refuses password login with 403 for members and admins, after checking the password', async () => {
    for (const user of [member, admin]) {
      const response = await passwordLogin(user.user.email);
      expect(response.statusCode).toBe(403);
      expect(JSON.parse(response.body).detail).toContain(`/api/v1/auth/saml/${orgId}/login`);
      expect(response.cookies.find((c) => c.name === 'session')).toBeUndefined();
    }
    // A wrong password tells nothing about the organization's sign-in.
    expect((await passwordLogin(member.user.email, 'wrong password!')).statusCode).toBe(401);
    const audit = await t.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'auth.login')
      .where('target_id', '=', admin.user.id)
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit.outcome).toBe('failure');
    expect(audit.details).toMatchObject({ method: 'password', reason: 'saml_enforced' });
  });

  it('lets owners in with their password (break-glass)', async () => {
    expect((await passwordLogin(owner.user.email)).statusCode).toBe(200);
  });

  it('refuses OAuth login with 403 for members; owners get in', async () => {
    expect((await githubLogin(member.user.email)).statusCode).toBe(403);
    const ownerLogin = await githubLogin(owner.user.email);
    expect(ownerLogin.statusCode).toBe(302);
    expect(ownerLogin.cookies.find((c) => c.name === 'session')?.value).toBeTruthy();
  });

  it('still signs members in through the identity provider', async () => {
    const start = await t.app.inject({ method: 'GET', url: `/api/v1/auth/saml/${orgId}/login` });
    const request = readAuthnRequest(String(start.headers.location));
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/v1/auth/saml/${orgId}/acs`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        SAMLResponse: samlResponse({
          inResponseTo: request.id,
          acsUrl: request.acsUrl,
          audience: request.issuer,
          nameId: member.user.email,
        }),
      }).toString(),
    });
    expect(response.statusCode).toBe(302);
  });

  it('refuses the 2FA step when enforcement was switched on after the password step', async () => {
    const other = await t.createOrg();
    const user = await t.createUser(other.orgId, 'member');
    const setup = await user.post('/api/v1/auth/2fa/setup');
    const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret) });
    const enable = await user.post('/api/v1/auth/2fa/enable', {
      code: totp.generate({ timestamp: t.now().getTime() }),
    });
    expect(enable.status).toBe(200);
    const first = await passwordLogin(user.user.email);
    expect(JSON.parse(first.body).needs_2fa).toBe(true);
    expect((await other.owner.put('/api/v1/admin/saml', { ...FIELDS, enforced: true })).status).toBe(200);
    const second = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login/2fa',
      payload: { partial_token: JSON.parse(first.body).partial_token, code: enable.body.recovery_codes[0] },
    });
    expect(second.statusCode).toBe(403);
    expect(second.cookies.find((c) => c.name === 'session')).toBeUndefined();
  });

  it('does not apply without enforcement, nor once SAML is removed', async () => {
    const other = await t.createOrg();
    const user = await t.createUser(other.orgId, 'member');
    expect((await other.owner.put('/api/v1/admin/saml', FIELDS)).status).toBe(200);
    expect((await passwordLogin(user.user.email)).statusCode).toBe(200);
    expect((await other.owner.put('/api/v1/admin/saml', { ...FIELDS, enforced: true })).status).toBe(200);
    expect((await passwordLogin(user.user.email)).statusCode).toBe(403);
    expect((await other.owner.delete('/api/v1/admin/saml')).status).toBe(204);
    expect((await passwordLogin(user.user.email)).statusCode).toBe(200);
  });
});

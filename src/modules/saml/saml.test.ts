// The ACS against a real signing identity provider (test/support/saml-idp.ts): the test plays the
// browser, starting at /login, handing the AuthnRequest to the IdP and posting its Response back as
// a form. Each refusal is one attack an identity provider's neighbour could try; each test fails when
// the check that stops it is removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import {
  assertionXml,
  fromBase64,
  IDP_CERTIFICATE,
  IDP_ENTITY_ID,
  IDP_SSO_URL,
  type ResponseOptions,
  readAuthnRequest,
  samlResponse,
  sign,
  toBase64,
  wrapInResponse,
} from '../../../test/support/saml-idp.ts';

const PUBLIC_URL = 'http://127.0.0.1:8000';
const FORM = 'application/x-www-form-urlencoded';

describe('SAML sign-in (ACS)', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let member: Client;
  let sp: { entityId: string; acsUrl: string };

  beforeAll(async () => {
    t = await createTestApp({ publicUrl: PUBLIC_URL });
    ({ orgId, owner } = await t.createOrg());
    member = await t.createUser(orgId, 'member');
    const put = await owner.put('/api/v1/admin/saml', {
      idp_entity_id: IDP_ENTITY_ID,
      idp_sso_url: IDP_SSO_URL,
      idp_certificate: IDP_CERTIFICATE,
    });
    expect(put.status).toBe(200);
    sp = { entityId: put.body.sp_entity_id, acsUrl: put.body.sp_acs_url };
  });
  afterAll(() => t.close());

  /** The browser at /login: the AuthnRequest the identity provider receives. */
  async function startLogin(org = orgId) {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/auth/saml/${org}/login` });
    expect(response.statusCode).toBe(302);
    return readAuthnRequest(String(response.headers.location));
  }

  async function postAcs(samlResponseB64: string, org = orgId) {
    return t.app.inject({
      method: 'POST',
      url: `/api/v1/auth/saml/${org}/acs`,
      headers: { 'content-type': FORM },
      payload: new URLSearchParams({ SAMLResponse: samlResponseB64, RelayState: '' }).toString(),
    });
  }

  /** A Response to a fresh AuthnRequest, as the identity provider would send it, with changes. */
  async function answer(changes: Partial<ResponseOptions> = {}, org = orgId) {
    const request = await startLogin(org);
    return samlResponse({
      inResponseTo: request.id,
      acsUrl: request.acsUrl,
      audience: request.issuer,
      nameId: member.user.email,
      ...changes,
    });
  }

  async function lastSamlAudit() {
    return (
      t.store.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'auth.saml_login')
        // The store's own order: `seq` counts within an organization, and some refusals have none.
        .orderBy('position', 'desc')
        .executeTakeFirstOrThrow()
    );
  }

  async function expectRefused(response: Awaited<ReturnType<typeof postAcs>>, reason: string) {
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toEqual({ detail: expect.any(String) });
    expect(response.cookies.find((c) => c.name === 'session')).toBeUndefined();
    const audit = await lastSamlAudit();
    expect(audit.outcome).toBe('failure');
    expect((audit.details as { reason: string }).reason).toBe(reason);
  }

  describe('accepted', () => {
    it('signs in with a signed assertion: session cookies, 302 to the web application, audited', async () => {
      const request = await startLogin();
      expect(request.acsUrl).toBe(sp.acsUrl);
      expect(request.issuer).toBe(sp.entityId);
      const response = await postAcs(
        samlResponse({
          inResponseTo: request.id,
          acsUrl: sp.acsUrl,
          audience: sp.entityId,
          nameId: member.user.email,
        }),
      );
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe(`${PUBLIC_URL}/`);
      const cookies = Object.fromEntries(response.cookies.map((c) => [c.name, c.value]));
      expect(cookies.session).toBeTruthy();
      expect(cookies.csrf_token).toBeTruthy();
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        cookies: { session: cookies.session as string },
      });
      expect(JSON.parse(me.body).id).toBe(member.user.id);
      const audit = await lastSamlAudit();
      expect(audit.outcome).toBe('success');
      expect(audit.target_id).toBe(member.user.id);
      expect(audit.org_id).toBe(orgId);
    });

    it('accepts a signed Response around an unsigned assertion', async () => {
      const response = await postAcs(await answer({ sign: 'response' }));
      expect(response.statusCode).toBe(302);
    });

    it('matches the NameID case-insensitively', async () => {
      const response = await postAcs(await answer({ nameId: member.user.email.toUpperCase() }));
      expect(response.statusCode).toBe(302);
      expect((await lastSamlAudit()).target_id).toBe(member.user.id);
    });

    it('finds the user by the externalId attribute when the NameID is not their e-mail', async () => {
      const user = await t.createUser(orgId, 'member');
      await t.store.db
        .updateTable('users')
        .set({ scim_external_id: 'okta-00u1abc' })
        .where('id', '=', user.user.id)
        .execute();
      const response = await postAcs(
        await answer({ nameId: 'someone.else@idp.example', externalId: 'okta-00u1abc' }),
      );
      expect(response.statusCode).toBe(302);
      expect((await lastSamlAudit()).target_id).toBe(user.user.id);
    });

    it("skips the service's own 2FA: the identity provider's applies", async () => {
      const user = await t.createUser(orgId, 'member');
      await t.store.db
        .updateTable('users')
        .set({ two_factor_enabled: true })
        .where('id', '=', user.user.id)
        .execute();
      const response = await postAcs(await answer({ nameId: user.user.email }));
      expect(response.statusCode).toBe(302);
      expect(response.cookies.find((c) => c.name === 'session')?.value).toBeTruthy();
    });

    it('accepts an assertion within the 3 minutes of clock skew either side', async () => {
      expect((await postAcs(await answer({ notOnOrAfterMs: -2 * 60_000 }))).statusCode).toBe(302);
      expect((await postAcs(await answer({ notBeforeMs: 2 * 60_000 }))).statusCode).toBe(302);
    });
  });

  describe('refused', () => {
    it('an unsigned Response and assertion', async () => {
      await expectRefused(await postAcs(await answer({ sign: 'none' })), 'signature');
    });

    it('an assertion signed with another key', async () => {
      await expectRefused(await postAcs(await answer({ key: 'attacker' })), 'signature');
    });

    it('a Response signed with another key around an unsigned assertion', async () => {
      await expectRefused(await postAcs(await answer({ sign: 'response', key: 'attacker' })), 'signature');
    });

    it('a signed assertion changed after signing (another NameID)', async () => {
      const admin = await t.createUser(orgId, 'admin');
      const xml = fromBase64(await answer()).replace(member.user.email, admin.user.email);
      await expectRefused(await postAcs(toBase64(xml)), 'signature');
    });

    it('signature wrapping: a signed assertion in an unsigned Response with a second assertion', async () => {
      const admin = await t.createUser(orgId, 'admin');
      for (const order of ['signed first', 'forged first']) {
        const request = await startLogin();
        const base = { inResponseTo: request.id, acsUrl: sp.acsUrl, audience: sp.entityId };
        const signed = sign(assertionXml({ ...base, nameId: member.user.email }), 'Assertion');
        const forged = assertionXml({ ...base, nameId: admin.user.email });
        const assertions = order === 'signed first' ? signed + forged : forged + signed;
        await expectRefused(await postAcs(toBase64(wrapInResponse(assertions, base))), 'signature');
      }
    });

    it('signature wrapping: the signed assertion hidden in Extensions, a forged one in its place', async () => {
      const admin = await t.createUser(orgId, 'admin');
      const request = await startLogin();
      const base = { inResponseTo: request.id, acsUrl: sp.acsUrl, audience: sp.entityId };
      const signed = sign(assertionXml({ ...base, nameId: member.user.email }), 'Assertion');
      const id = /ID="([^"]+)"/.exec(signed)?.[1] as string;
      // The forged assertion takes the signed one's ID and carries its signature.
      const signature = /<(\w+:)?Signature[\s\S]*<\/(\w+:)?Signature>/.exec(signed)?.[0] as string;
      const forged = assertionXml({ ...base, nameId: admin.user.email, assertionId: id }).replace(
        /(<saml:Issuer>[^<]*<\/saml:Issuer>)/,
        `$1${signature}`,
      );
      const xml = wrapInResponse(`<samlp:Extensions>${signed}</samlp:Extensions>${forged}`, base);
      await expectRefused(await postAcs(toBase64(xml)), 'signature');
    });

    it('a replayed Response', async () => {
      const response = await answer();
      expect((await postAcs(response)).statusCode).toBe(302);
      await expectRefused(await postAcs(response), 'in_response_to');
    });

    it('a used assertion id, even in answer to a new request', async () => {
      const assertionId = `_replay${Date.now()}`;
      expect((await postAcs(await answer({ assertionId }))).statusCode).toBe(302);
      await expectRefused(await postAcs(await answer({ assertionId })), 'replayed');
    });

    it('an assertion for another audience', async () => {
      await expectRefused(
        await postAcs(await answer({ audience: 'https://other-sp.example/metadata' })),
        'audience',
      );
    });

    it('an expired assertion (past NotOnOrAfter and the skew)', async () => {
      await expectRefused(
        await postAcs(await answer({ notBeforeMs: -10 * 60_000, notOnOrAfterMs: -4 * 60_000 })),
        'time',
      );
    });

    it('an assertion not yet valid (before NotBefore and the skew)', async () => {
      await expectRefused(await postAcs(await answer({ notBeforeMs: 4 * 60_000 })), 'time');
    });

    it('an assertion from another issuer, signed with the configured key', async () => {
      await expectRefused(await postAcs(await answer({ issuer: 'http://127.0.0.1:9/other-idp' })), 'issuer');
    });

    it('a Response from another issuer', async () => {
      await expectRefused(
        await postAcs(await answer({ sign: 'both', responseIssuer: 'http://127.0.0.1:9/other-idp' })),
        'issuer',
      );
    });

    it('a Response addressed elsewhere (Destination), or without a Destination', async () => {
      await expectRefused(
        await postAcs(await answer({ destination: 'https://other-sp.example/acs' })),
        'destination',
      );
      await expectRefused(await postAcs(await answer({ destination: null })), 'destination');
    });

    it('an assertion meant for another ACS (Recipient)', async () => {
      await expectRefused(
        await postAcs(await answer({ recipient: 'https://other-sp.example/acs' })),
        'recipient',
      );
    });

    it('a Response whose status is not Success', async () => {
      await expectRefused(
        await postAcs(await answer({ sign: 'both', status: 'urn:oasis:names:tc:SAML:2.0:status:Requester' })),
        'status',
      );
    });

    it('a signed assertion that does not name the request, in a Response that does', async () => {
      await expectRefused(await postAcs(await answer({ subjectInResponseTo: null })), 'in_response_to');
    });

    it("a signed assertion answering another request than the Response's", async () => {
      const earlier = await startLogin();
      await expectRefused(await postAcs(await answer({ subjectInResponseTo: earlier.id })), 'in_response_to');
    });

    it('an unsolicited Response (no InResponseTo)', async () => {
      await expectRefused(await postAcs(await answer({ inResponseTo: null })), 'in_response_to');
    });

    it('a Response to a request this service never sent', async () => {
      await expectRefused(await postAcs(await answer({ inResponseTo: '_never-sent' })), 'in_response_to');
    });

    it('a Response to a request older than 10 minutes', async () => {
      const request = await startLogin();
      t.advance(11 * 60_000);
      try {
        const response = samlResponse({
          inResponseTo: request.id,
          acsUrl: sp.acsUrl,
          audience: sp.entityId,
          nameId: member.user.email,
        });
        await expectRefused(await postAcs(response), 'in_response_to');
      } finally {
        t.advance(-11 * 60_000);
      }
    });

    it("a Response to another organization's request", async () => {
      const other = await t.createOrg();
      expect(
        (
          await other.owner.put('/api/v1/admin/saml', {
            idp_entity_id: IDP_ENTITY_ID,
            idp_sso_url: IDP_SSO_URL,
            idp_certificate: IDP_CERTIFICATE,
          })
        ).status,
      ).toBe(200);
      const request = await startLogin(other.orgId);
      await expectRefused(
        await postAcs(
          samlResponse({
            inResponseTo: request.id,
            acsUrl: sp.acsUrl,
            audience: sp.entityId,
            nameId: member.user.email,
          }),
        ),
        'in_response_to',
      );
    });

    it('a user of another organization', async () => {
      const other = await t.createOrg();
      await expectRefused(await postAcs(await answer({ nameId: other.owner.user.email })), 'unknown_user');
    });

    it('an unknown user: SAML creates no account', async () => {
      const email = `nobody-${Date.now()}@example.com`;
      await expectRefused(await postAcs(await answer({ nameId: email })), 'unknown_user');
      const created = await t.store.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirst();
      expect(created).toBeUndefined();
    });

    it('a deactivated user, and a deleted one', async () => {
      const gone = await t.createUser(orgId, 'member');
      await t.store.db.updateTable('users').set({ active: false }).where('id', '=', gone.user.id).execute();
      await expectRefused(await postAcs(await answer({ nameId: gone.user.email })), 'deactivated');
      await t.store.db
        .updateTable('users')
        .set({ deleted_at: new Date() })
        .where('id', '=', gone.user.id)
        .execute();
      await expectRefused(await postAcs(await answer({ nameId: gone.user.email })), 'unknown_user');
    });

    it('what is not a SAML Response at all', async () => {
      await expectRefused(await postAcs(toBase64('<html>hello</html>')), 'not_a_response');
      await expectRefused(await postAcs('%%% not base64 %%%'), 'not_a_response');
    });

    it('an organization without SAML', async () => {
      const other = await t.createOrg();
      await expectRefused(await postAcs(await answer(), other.orgId), 'not_configured');
    });
  });

  it('answers 422 for a form without SAMLResponse', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/v1/auth/saml/${orgId}/acs`,
      headers: { 'content-type': FORM },
      payload: 'RelayState=x',
    });
    expect(response.statusCode).toBe(422);
    expect(JSON.parse(response.body).detail[0].loc).toEqual(['body', 'SAMLResponse']);
  });

  it('takes the form body on the ACS only: the rest of the API stays JSON', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': FORM },
      payload: new URLSearchParams({ email: member.user.email, password: 'x' }).toString(),
    });
    expect(response.statusCode).toBe(415);
  });
});

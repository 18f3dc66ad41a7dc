// SAML configuration by organization admins (role, scope, other organization), the service-provider
// metadata and the redirect to the identity provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import {
  bareCertificate,
  IDP_CERTIFICATE,
  IDP_ENTITY_ID,
  IDP_SSO_URL,
  idpMetadataXml,
  readAuthnRequest,
} from '../../../test/support/saml-idp.ts';

const PUBLIC_URL = 'http://127.0.0.1:8000';
const URL_ = '/api/v1/admin/saml';
const FIELDS = { idp_entity_id: IDP_ENTITY_ID, idp_sso_url: IDP_SSO_URL, idp_certificate: IDP_CERTIFICATE };

describe('SAML configuration', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let admin: Client;
  let member: Client;

  beforeAll(async () => {
    t = await createTestApp({ publicUrl: PUBLIC_URL });
    ({ orgId, owner } = await t.createOrg());
    admin = await t.createUser(orgId, 'admin');
    member = await t.createUser(orgId, 'member');
  });
  afterAll(() => t.close());

  it('is set from the three fields, read back with what to enter at the identity provider, and audited', async () => {
    const put = await admin.put(URL_, { ...FIELDS, enforced: true });
    expect(put.status).toBe(200);
    const base = `${PUBLIC_URL}/api/v1/auth/saml/${orgId}`;
    expect(put.body).toMatchObject({
      idp_entity_id: IDP_ENTITY_ID,
      idp_sso_url: IDP_SSO_URL,
      enforced: true,
      sp_entity_id: `${base}/metadata`,
      sp_acs_url: `${base}/acs`,
      sp_metadata_url: `${base}/metadata`,
      login_url: `${base}/login`,
    });
    expect(put.body.idp_certificate).toContain('-----BEGIN CERTIFICATE-----');
    expect((await admin.get(URL_)).body).toEqual(put.body);
    const audit = await t.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'saml.config.update')
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    expect(audit.actor_id).toBe(admin.user.id);
    expect(audit.details).toMatchObject({ enforced: true, from: 'fields', idp_entity_id: IDP_ENTITY_ID });
  });

  it('takes the certificate as bare base64 and stores it as PEM', async () => {
    const put = await owner.put(URL_, { ...FIELDS, idp_certificate: bareCertificate(IDP_CERTIFICATE) });
    expect(put.status).toBe(200);
    expect(bareCertificate(put.body.idp_certificate)).toBe(bareCertificate(IDP_CERTIFICATE));
    expect(put.body.idp_certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(put.body.enforced).toBe(false);
  });

  it("reads the identity provider's metadata: entity id, HTTP-Redirect SSO URL, signing certificate", async () => {
    const put = await owner.put(URL_, { idp_metadata_xml: idpMetadataXml() });
    expect(put.status).toBe(200);
    expect(put.body.idp_entity_id).toBe(IDP_ENTITY_ID);
    expect(put.body.idp_sso_url).toBe(IDP_SSO_URL);
    expect(bareCertificate(put.body.idp_certificate)).toBe(bareCertificate(IDP_CERTIFICATE));
  });

  it('refuses what it cannot use with 422 naming the field, and changes nothing', async () => {
    const before = (await owner.get(URL_)).body;
    const cases: [object, string[]][] = [
      [{ idp_metadata_xml: idpMetadataXml(), idp_entity_id: 'x' }, ['body', 'idp_entity_id']],
      [{ idp_entity_id: 'x', idp_sso_url: IDP_SSO_URL }, ['body', 'idp_certificate']],
      [{ ...FIELDS, idp_certificate: 'not a certificate' }, ['body', 'idp_certificate']],
      [{ ...FIELDS, idp_certificate: Buffer.from('hello').toString('base64') }, ['body', 'idp_certificate']],
      [{ idp_metadata_xml: '<md:EntityDescriptor' }, ['body', 'idp_metadata_xml']],
      [
        { idp_metadata_xml: idpMetadataXml().replace(/<md:KeyDescriptor[\s\S]*<\/md:KeyDescriptor>/, '') },
        ['body', 'idp_metadata_xml'],
      ],
      [
        {
          idp_metadata_xml: `<!DOCTYPE x [<!ENTITY e "e">]>${idpMetadataXml().replace('<?xml version="1.0"?>', '')}`,
        },
        ['body', 'idp_metadata_xml'],
      ],
      [{ ...FIELDS, idp_sso_url: 'ftp://127.0.0.1/sso' }, ['body', 'idp_sso_url']],
      [{ ...FIELDS, extra: 1 }, ['body', 'extra']],
    ];
    for (const [body, loc] of cases) {
      const response = await owner.put(URL_, body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(response.body.detail[0].loc).toEqual(loc);
    }
    expect((await owner.get(URL_)).body).toEqual(before);
  });

  describe('authorization', () => {
    it('is for organization admins: a member gets 403 on every route', async () => {
      expect((await member.get(URL_)).status).toBe(403);
      expect((await member.put(URL_, FIELDS)).status).toBe(403);
      expect((await member.delete(URL_)).status).toBe(403);
    });

    it('API keys: read scope reads, changes need the admin scope', async () => {
      const reader = await t.keyClient(admin, ['read']);
      const writer = await t.keyClient(admin, ['write']);
      const full = await t.keyClient(admin, ['admin']);
      expect((await reader.get(URL_)).status).toBe(200);
      expect((await reader.put(URL_, FIELDS)).status).toBe(403);
      expect((await writer.put(URL_, FIELDS)).status).toBe(403);
      expect((await writer.delete(URL_)).status).toBe(403);
      expect((await full.put(URL_, FIELDS)).status).toBe(200);
      // A key never exceeds its owner: a member's admin key is still a member's.
      const memberKey = await t.keyClient(member, ['admin']);
      expect((await memberKey.get(URL_)).status).toBe(403);
    });

    it("another organization's admin sees and changes only their own", async () => {
      const other = await t.createOrg();
      expect((await other.owner.get(URL_)).status).toBe(404);
      expect((await other.owner.delete(URL_)).status).toBe(404);
      expect((await owner.get(URL_)).status).toBe(200);
    });

    it('needs a signed-in caller', async () => {
      expect((await t.anonymous.get(URL_)).status).toBe(401);
      expect((await t.anonymous.put(URL_, FIELDS)).status).toBe(401);
    });
  });

  describe('service-provider endpoints', () => {
    it('metadata: entity id (its own URL), the ACS with HTTP-POST, NameID format e-mail', async () => {
      const response = await t.app.inject({ method: 'GET', url: `/api/v1/auth/saml/${orgId}/metadata` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('application/samlmetadata+xml');
      const base = `${PUBLIC_URL}/api/v1/auth/saml/${orgId}`;
      expect(response.body).toContain(`entityID="${base}/metadata"`);
      expect(response.body).toMatch(
        new RegExp(
          `AssertionConsumerService[^>]*Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"[^>]*Location="${base}/acs"`,
        ),
      );
      expect(response.body).toContain('urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress');
    });

    it('login: 302 to the identity provider with an AuthnRequest whose id is kept in the store', async () => {
      const response = await t.app.inject({ method: 'GET', url: `/api/v1/auth/saml/${orgId}/login` });
      expect(response.statusCode).toBe(302);
      const location = new URL(String(response.headers.location));
      expect(`${location.origin}${location.pathname}`).toBe(IDP_SSO_URL);
      const request = readAuthnRequest(location.href);
      expect(request.acsUrl).toBe(`${PUBLIC_URL}/api/v1/auth/saml/${orgId}/acs`);
      expect(request.issuer).toBe(`${PUBLIC_URL}/api/v1/auth/saml/${orgId}/metadata`);
      const kept = await t.store.db
        .selectFrom('saml_requests')
        .selectAll()
        .where('request_id', '=', request.id)
        .executeTakeFirstOrThrow();
      expect(kept.org_id).toBe(orgId);
      expect(kept.expires_at.getTime() - kept.created_at.getTime()).toBe(10 * 60_000);
    });

    it("forgets the organization's expired request and assertion ids as a sign-in starts", async () => {
      const past = new Date(t.now().getTime() - 1000);
      const future = new Date(t.now().getTime() + 60_000);
      await t.store.db
        .insertInto('saml_requests')
        .values([
          { org_id: orgId, request_id: '_expired', created_at: past, expires_at: past },
          { org_id: orgId, request_id: '_live', created_at: past, expires_at: future },
        ])
        .execute();
      await t.store.db
        .insertInto('saml_assertions')
        .values({ org_id: orgId, assertion_id: '_expired', used_at: past, expires_at: past })
        .execute();
      expect(
        (await t.app.inject({ method: 'GET', url: `/api/v1/auth/saml/${orgId}/login` })).statusCode,
      ).toBe(302);
      const requests = await t.store.db
        .selectFrom('saml_requests')
        .select('request_id')
        .where('org_id', '=', orgId)
        .execute();
      expect(requests.map((r) => r.request_id)).toContain('_live');
      expect(requests.map((r) => r.request_id)).not.toContain('_expired');
      const assertions = await t.store.db
        .selectFrom('saml_assertions')
        .select('assertion_id')
        .where('org_id', '=', orgId)
        .execute();
      expect(assertions).toEqual([]);
    });

    it('answer 404 for an organization without SAML and 422 for a malformed id', async () => {
      const other = await t.createOrg();
      for (const path of ['metadata', 'login']) {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/v1/auth/saml/${other.orgId}/${path}`,
        });
        expect(response.statusCode).toBe(404);
        expect(JSON.parse(response.body).detail).toBe(
          'SAML single sign-on is not configured for this organization',
        );
        expect(
          (await t.app.inject({ method: 'GET', url: `/api/v1/auth/saml/not-a-uuid/${path}` })).statusCode,
        ).toBe(422);
      }
    });
  });

  it('DELETE removes it (204, audited); then 404', async () => {
    expect((await owner.delete(URL_)).status).toBe(204);
    expect((await owner.get(URL_)).status).toBe(404);
    expect((await owner.delete(URL_)).status).toBe(404);
    const audit = await t.store.db
      .selectFrom('audit_log')
      .select('actor_id')
      .where('action', '=', 'saml.config.delete')
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    expect(audit.actor_id).toBe(owner.user.id);
  });
});

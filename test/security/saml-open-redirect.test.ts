// Finding 6 of the attack: anyone could sign up, set `idp_sso_url` to `http://evil.example/phish`,
// and hand out the service's own `/auth/saml/{org_id}/login` link, which redirected there: an open
// redirect under the service's name. docs/contract.md §12.1: the SSO URL must be https:// (http:// only for a
// loopback host), also when read from `idp_metadata_xml`; a configuration stored before the rule is
// refused at login with 409 until it is corrected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertSamlConfig } from '../../src/modules/saml/saml.repo.ts';
import { type Client, createTestApp, type TestApp } from '../support/app.ts';
import { IDP_CERTIFICATE, IDP_ENTITY_ID, IDP_SSO_URL, idpMetadataXml } from '../support/saml-idp.ts';

const FIELDS = { idp_entity_id: IDP_ENTITY_ID, idp_certificate: IDP_CERTIFICATE };

describe('SAML single sign-on URL: no open redirect', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Phisher'));
  });
  afterAll(async () => {
    await t?.close();
  });

  const login = () => t.app.inject({ method: 'GET', url: `/api/v1/auth/saml/${orgId}/login` });

  it('refuses a non-https SSO URL in the fields, unless its host is a loopback one', async () => {
    for (const url of [
      'http://evil.example/phish',
      'http://127.0.0.1.evil.example/sso',
      'http://localhost.evil.example/sso',
      'http://10.0.0.1/sso',
      'https://user:secret@idp.example.com/sso',
    ]) {
      const response = await owner.put('/api/v1/admin/saml', { ...FIELDS, idp_sso_url: url });
      expect(response.status, url).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', 'idp_sso_url']);
    }
    for (const url of [
      'https://idp.example.com/sso',
      'http://127.0.0.1:9/idp/sso',
      'http://localhost:8080/sso',
      'http://[::1]:8080/sso',
    ]) {
      const response = await owner.put('/api/v1/admin/saml', { ...FIELDS, idp_sso_url: url });
      expect(response.status, url).toBe(200);
    }
  });

  it('refuses a non-https SingleSignOnService inside the metadata', async () => {
    const evil = idpMetadataXml().replace(IDP_SSO_URL, 'http://evil.example/phish');
    expect(evil).toContain('http://evil.example/phish');
    const response = await owner.put('/api/v1/admin/saml', { idp_metadata_xml: evil });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'idp_metadata_xml']);
    expect(response.body.detail[0].msg).toMatch(/https:\/\//);
  });

  it('answers 409 at login for a configuration stored before the rule, until it is corrected', async () => {
    await upsertSamlConfig(
      t.store.db,
      orgId,
      { ...FIELDS, idp_sso_url: 'http://evil.example/phish', enforced: false },
      new Date(),
    );
    const refused = await login();
    expect(refused.statusCode).toBe(409);
    expect(refused.headers.location).toBeUndefined();
    expect(JSON.parse(refused.body).detail).toMatch(/https:\/\//);

    const fixed = await owner.put('/api/v1/admin/saml', {
      ...FIELDS,
      idp_sso_url: 'https://idp.example.com/sso',
    });
    expect(fixed.status).toBe(200);
    const redirected = await login();
    expect(redirected.statusCode).toBe(302);
    expect(String(redirected.headers.location)).toMatch(/^https:\/\/idp\.example\.com\/sso\?SAMLRequest=/);
  });
});

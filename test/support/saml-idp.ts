// A SAML identity provider for tests: it reads the AuthnRequest this service redirects to it and
// answers with a Response it signs for real (xml-crypto, RSA-SHA256) with its test key, or with the
// attacker's key, or not at all. Every part an attacker might change is an option, so each check of
// the ACS can be tried on its own. Keys: test/support/saml/*.pem (self-signed, made for these tests).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

const pem = (name: string) => readFileSync(new URL(`./saml/${name}.pem`, import.meta.url), 'utf8');
const KEYS = {
  idp: { key: pem('idp-key'), cert: pem('idp-cert') },
  attacker: { key: pem('attacker-key'), cert: pem('attacker-cert') },
};

export const IDP_ENTITY_ID = 'http://127.0.0.1:9/idp/metadata';
export const IDP_SSO_URL = 'http://127.0.0.1:9/idp/sso';

/** The certificate's base64 body, as metadata files carry it. */
export const bareCertificate = (cert: string) => cert.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
export const IDP_CERTIFICATE = KEYS.idp.cert;

export function idpMetadataXml(): string {
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${IDP_ENTITY_ID}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
        <ds:X509Data><ds:X509Certificate>${bareCertificate(KEYS.idp.cert)}</ds:X509Certificate></ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="http://127.0.0.1:9/idp/post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${IDP_SSO_URL}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

export interface AuthnRequest {
  id: string;
  issuer: string;
  acsUrl: string;
  xml: string;
}

/** The AuthnRequest carried by the redirect to the identity provider (HTTP-Redirect: deflate + base64). */
export function readAuthnRequest(location: string): AuthnRequest {
  const url = new URL(location);
  const encoded = url.searchParams.get('SAMLRequest');
  if (!encoded) throw new Error(`no SAMLRequest in ${location}`);
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const attribute = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
  return {
    id: attribute('ID'),
    acsUrl: attribute('AssertionConsumerServiceURL'),
    issuer: /<saml:Issuer[^>]*>([^<]*)<\/saml:Issuer>/.exec(xml)?.[1] ?? '',
    xml,
  };
}

export interface AssertionOptions {
  /** The request answered; null for an unsolicited response. */
  inResponseTo: string | null;
  acsUrl: string;
  audience: string;
  nameId: string;
  externalId?: string;
  issuer?: string;
  recipient?: string;
  assertionId?: string;
  /** The bearer confirmation's InResponseTo, when it differs from the Response's (null: none). */
  subjectInResponseTo?: string | null;
  /** Relative to now, in ms; both the Conditions and the bearer confirmation use them. */
  notBeforeMs?: number;
  notOnOrAfterMs?: number;
}

export interface ResponseOptions extends AssertionOptions {
  destination?: string | null;
  responseIssuer?: string;
  status?: string;
  /** What is signed, and with which key. */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  key?: keyof typeof KEYS;
}

const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
const newId = () => `_${randomBytes(16).toString('hex')}`;
const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

export function assertionXml(o: AssertionOptions): string {
  const issuer = o.issuer ?? IDP_ENTITY_ID;
  const notBefore = iso(o.notBeforeMs ?? -60_000);
  const notOnOrAfter = iso(o.notOnOrAfterMs ?? 5 * 60_000);
  const answered = o.subjectInResponseTo === undefined ? o.inResponseTo : o.subjectInResponseTo;
  const inResponseTo = answered === null ? '' : ` InResponseTo="${xmlEscape(answered)}"`;
  const externalId = o.externalId
    ? `<saml:AttributeStatement><saml:Attribute Name="externalId"><saml:AttributeValue>${xmlEscape(o.externalId)}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>`
    : '';
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.assertionId ?? newId()}" Version="2.0" IssueInstant="${iso(0)}">` +
    `<saml:Issuer>${xmlEscape(issuer)}</saml:Issuer>` +
    '<saml:Subject>' +
    `<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${xmlEscape(o.nameId)}</saml:NameID>` +
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">' +
    `<saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${xmlEscape(o.recipient ?? o.acsUrl)}"${inResponseTo}/>` +
    '</saml:SubjectConfirmation>' +
    '</saml:Subject>' +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}">` +
    `<saml:AudienceRestriction><saml:Audience>${xmlEscape(o.audience)}</saml:Audience></saml:AudienceRestriction>` +
    '</saml:Conditions>' +
    `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    externalId +
    '</saml:Assertion>'
  );
}

/** Signs the element at `xpath` (enveloped signature placed after its Issuer), with a key of the IdP or the attacker. */
export function sign(xml: string, what: 'Assertion' | 'Response', key: keyof typeof KEYS = 'idp'): string {
  const element = what === 'Response' ? "/*[local-name(.)='Response']" : "//*[local-name(.)='Assertion']";
  const signer = new SignedXml({
    privateKey: KEYS[key].key,
    publicCert: KEYS[key].cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: element,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: [
      'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
      'http://www.w3.org/2001/10/xml-exc-c14n#',
    ],
  });
  signer.computeSignature(xml, {
    location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return signer.getSignedXml();
}

export function wrapInResponse(
  assertions: string,
  o: Omit<ResponseOptions, keyof AssertionOptions> & { inResponseTo: string | null; acsUrl: string },
): string {
  const inResponseTo = o.inResponseTo === null ? '' : ` InResponseTo="${xmlEscape(o.inResponseTo)}"`;
  const destination = o.destination === null ? '' : ` Destination="${xmlEscape(o.destination ?? o.acsUrl)}"`;
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${iso(0)}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${xmlEscape(o.responseIssuer ?? IDP_ENTITY_ID)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${o.status ?? 'urn:oasis:names:tc:SAML:2.0:status:Success'}"/></samlp:Status>` +
    assertions +
    '</samlp:Response>'
  );
}

/** A Response as the identity provider posts it (base64 of the XML). */
export function samlResponse(o: ResponseOptions): string {
  const signWhat = o.sign ?? 'assertion';
  let assertion = assertionXml(o);
  if (signWhat === 'assertion' || signWhat === 'both') assertion = sign(assertion, 'Assertion', o.key);
  let response = wrapInResponse(assertion, o);
  if (signWhat === 'response' || signWhat === 'both') response = sign(response, 'Response', o.key);
  return toBase64(response);
}

export const toBase64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');
export const fromBase64 = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

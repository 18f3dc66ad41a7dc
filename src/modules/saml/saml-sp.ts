// This service as a SAML service provider for one organization: node-saml does the XML signature
// (Response or Assertion, and it uses only what the signature covers), InResponseTo against the
// AuthnRequest ids kept in the store, the time bounds with 3 minutes of skew and the audience.
// node-saml 5 leaves out the rest (it checks the issuer of logout messages only, neither the
// Response's Destination nor the assertion's Recipient, and keeps no assertion-id cache), so
// `checkResponse` looks at the Response as posted, `checkAssertion` at the assertion node-saml
// verified, and the service spends each assertion id once (saml.repo.ts).
import { type CacheProvider, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { Db } from '../../store/db.ts';
import type { SamlConfig } from '../../store/tables.ts';
import {
  deleteExpiredSamlIds,
  deleteSamlRequest,
  findLiveSamlRequest,
  insertSamlRequest,
} from './saml.repo.ts';
import { attr, child, children, NS, parseXml, textOf, XmlError } from './saml-xml.ts';

export const CLOCK_SKEW_MS = 3 * 60_000;
export const REQUEST_TTL_MS = 10 * 60_000;
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** A SAML answer this service does not accept; `reason` goes to the audit trail. */
export class SamlRefusal extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The URLs of this service provider for an organization (the entity id is the metadata URL). */
export function spUrls(publicUrl: string, orgId: string) {
  const base = `${publicUrl}/api/v1/auth/saml/${orgId}`;
  return { entityId: `${base}/metadata`, acsUrl: `${base}/acs`, loginUrl: `${base}/login` };
}

/**
 * AuthnRequest ids in the store, per organization and on the service's clock: the ACS may be served
 * by another process than the one that sent the request, and an id is good once.
 */
function requestIdStore(db: Db, orgId: string, now: () => Date): CacheProvider {
  return {
    async saveAsync(key, value) {
      const at = now();
      await deleteExpiredSamlIds(db, orgId, at);
      await insertSamlRequest(db, {
        org_id: orgId,
        request_id: key,
        created_at: at,
        expires_at: new Date(at.getTime() + REQUEST_TTL_MS),
      });
      return { value, createdAt: at.getTime() };
    },
    async getAsync(key) {
      const createdAt = await findLiveSamlRequest(db, orgId, key, now());
      return createdAt ? createdAt.toISOString() : null;
    },
    async removeAsync(key) {
      if (key) await deleteSamlRequest(db, orgId, key);
      return key;
    },
  };
}

export function samlProvider(deps: { db: Db; now: () => Date; publicUrl: string; config: SamlConfig }): SAML {
  const { entityId, acsUrl } = spUrls(deps.publicUrl, deps.config.org_id);
  return new SAML({
    issuer: entityId,
    audience: entityId,
    callbackUrl: acsUrl,
    entryPoint: deps.config.idp_sso_url,
    idpCert: deps.config.idp_certificate,
    identifierFormat: EMAIL_FORMAT,
    // Identity providers sign the assertion by default, some the Response: either is enough, and
    // node-saml then reads only the signed part.
    wantAssertionsSigned: false,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: requestIdStore(deps.db, deps.config.org_id, deps.now),
    // Asking for a password context would make an identity provider refuse its own MFA methods.
    disableRequestedAuthnContext: true,
  });
}

export interface CheckedAssertion {
  assertionId: string;
  nameId: string | null;
  externalId: string | null;
  /** Until when this assertion could be accepted: its id must be remembered that long. */
  usableUntil: Date;
}

/**
 * The Response as posted, before node-saml reads it: a Response, addressed to this ACS, from the
 * identity provider, reporting success. Returns the request it answers.
 */
export function checkResponse(
  responseXml: string,
  expected: { idpEntityId: string; acsUrl: string },
): { inResponseTo: string | null } {
  let response: Element;
  try {
    response = parseXml(responseXml);
  } catch (error) {
    if (error instanceof XmlError)
      throw new SamlRefusal('not_a_response', 'The SAML Response is not valid XML');
    throw error;
  }
  if (response.namespaceURI !== NS.protocol || response.localName !== 'Response') {
    throw new SamlRefusal('not_a_response', 'The SAML message is not a Response');
  }
  if (attr(response, 'Destination') !== expected.acsUrl) {
    throw new SamlRefusal('destination', 'The SAML Response is not addressed to this service (Destination)');
  }
  const responseIssuer = textOf(child(response, NS.assertion, 'Issuer'));
  if (responseIssuer !== null && responseIssuer !== expected.idpEntityId) {
    throw new SamlRefusal('issuer', 'The SAML Response comes from another identity provider (Issuer)');
  }
  const status = child(response, NS.protocol, 'Status');
  if (attr(status && child(status, NS.protocol, 'StatusCode'), 'Value') !== SUCCESS) {
    throw new SamlRefusal('status', 'The identity provider did not sign you in (SAML status is not Success)');
  }
  return { inResponseTo: attr(response, 'InResponseTo') };
}

/**
 * The checks node-saml leaves out, on the assertion node-saml verified (never on an unsigned copy
 * of it elsewhere in the document).
 */
export function checkAssertion(
  verifiedAssertionXml: string,
  expected: { idpEntityId: string; acsUrl: string },
  inResponseTo: string | null,
  now: Date,
): CheckedAssertion {
  const assertion = parseXml(verifiedAssertionXml);
  if (textOf(child(assertion, NS.assertion, 'Issuer')) !== expected.idpEntityId) {
    throw new SamlRefusal('issuer', 'The SAML assertion comes from another identity provider (Issuer)');
  }
  const assertionId = attr(assertion, 'ID');
  if (!assertionId) throw new SamlRefusal('assertion_id', 'The SAML assertion has no ID');

  // A bearer confirmation for this ACS, answering the request the Response answers (the assertion's
  // copy is signed; the Response's may not be).
  const subject = child(assertion, NS.assertion, 'Subject');
  const confirmations = subject ? children(subject, NS.assertion, 'SubjectConfirmation') : [];
  const bearer = confirmations
    .filter((c) => attr(c, 'Method') === BEARER)
    .map((c) => child(c, NS.assertion, 'SubjectConfirmationData'));
  if (!bearer.some((data) => attr(data, 'Recipient') === expected.acsUrl)) {
    throw new SamlRefusal('recipient', 'The SAML assertion is not meant for this service (Recipient)');
  }
  if (
    !bearer.some((d) => attr(d, 'Recipient') === expected.acsUrl && attr(d, 'InResponseTo') === inResponseTo)
  ) {
    throw new SamlRefusal(
      'in_response_to',
      'The SAML assertion does not answer the sign-in request (InResponseTo)',
    );
  }

  const conditions = child(assertion, NS.assertion, 'Conditions');
  const ends = [attr(conditions, 'NotOnOrAfter'), ...bearer.map((d) => attr(d, 'NotOnOrAfter'))]
    .filter((v): v is string => v !== null)
    .map((v) => Date.parse(v))
    .filter((v) => !Number.isNaN(v));
  // Without an end, an assertion would be good forever: keep its id for as long as a request lives.
  const end = ends.length > 0 ? Math.max(...ends) : now.getTime() + REQUEST_TTL_MS;

  return {
    assertionId,
    nameId: subject ? textOf(child(subject, NS.assertion, 'NameID')) : null,
    externalId: attributeValue(assertion, 'externalId'),
    usableUntil: new Date(end + CLOCK_SKEW_MS),
  };
}

function attributeValue(assertion: Element, name: string): string | null {
  for (const statement of children(assertion, NS.assertion, 'AttributeStatement')) {
    for (const attribute of children(statement, NS.assertion, 'Attribute')) {
      if (attr(attribute, 'Name') === name) return textOf(child(attribute, NS.assertion, 'AttributeValue'));
    }
  }
  return null;
}

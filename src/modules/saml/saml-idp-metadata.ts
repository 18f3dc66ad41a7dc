// The three settings an organization needs from its identity provider, read from the IdP's metadata
// XML (what Okta, Entra ID and Google hand out): its entity id, the HTTP-Redirect single sign-on URL
// (the only binding this service sends AuthnRequests with) and its signing certificate.
import { attr, children, descendants, NS, parseXml, textOf, XmlError } from './saml-xml.ts';

export interface IdpSettings {
  idp_entity_id: string;
  idp_sso_url: string;
  idp_certificate: string;
}

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** Throws XmlError naming what is missing. */
export function readIdpMetadata(xml: string): IdpSettings {
  const root = parseXml(xml);
  // A metadata document may be one EntityDescriptor or an EntitiesDescriptor holding several.
  const entities =
    root.namespaceURI === NS.metadata && root.localName === 'EntityDescriptor'
      ? [root]
      : descendants(root, NS.metadata, 'EntityDescriptor');
  const withIdp = entities.filter((e) => children(e, NS.metadata, 'IDPSSODescriptor').length > 0);
  if (withIdp.length !== 1) {
    throw new XmlError(
      withIdp.length === 0
        ? 'The metadata has no EntityDescriptor with an IDPSSODescriptor'
        : 'The metadata describes several identity providers: give the one to use',
    );
  }
  const entity = withIdp[0] as Element;
  const entityId = attr(entity, 'entityID');
  if (!entityId) throw new XmlError('The EntityDescriptor has no entityID');
  const idp = children(entity, NS.metadata, 'IDPSSODescriptor')[0] as Element;

  const sso = children(idp, NS.metadata, 'SingleSignOnService').find(
    (s) => attr(s, 'Binding') === REDIRECT_BINDING,
  );
  const ssoUrl = attr(sso, 'Location');
  if (!ssoUrl)
    throw new XmlError('The IDPSSODescriptor has no SingleSignOnService with the HTTP-Redirect binding');

  // A key without `use` serves both signing and encryption (SAML metadata §2.4.1.1).
  const key = children(idp, NS.metadata, 'KeyDescriptor').find((k) => {
    const use = attr(k, 'use');
    return use === null || use === 'signing';
  });
  const certificate = key ? textOf(descendants(key, NS.dsig, 'X509Certificate')[0]) : null;
  if (!certificate) throw new XmlError('The IDPSSODescriptor has no signing certificate (X509Certificate)');

  return { idp_entity_id: entityId, idp_sso_url: ssoUrl, idp_certificate: certificate };
}

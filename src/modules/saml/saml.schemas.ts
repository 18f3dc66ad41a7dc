import { Type } from 'typebox';
import { DocumentedAs, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { SamlConfig } from '../../store/tables.ts';
import { spUrls } from './saml-sp.ts';

const HttpUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

const PutSamlConfigFields = Type.Object(
  {
    idp_metadata_xml: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 262_144,
        description:
          "The identity provider's SAML metadata (an EntityDescriptor with an IDPSSODescriptor): its " +
          'entity id, HTTP-Redirect SingleSignOnService and signing certificate are read from it. ' +
          'Give this, or the three idp_* fields, not both. Its SingleSignOnService Location follows ' +
          'the rule of idp_sso_url (422 on this field otherwise).',
      }),
    ),
    idp_entity_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: "The identity provider's entity id (Issuer)",
      }),
    ),
    idp_sso_url: Type.Optional({
      ...HttpUrl,
      description:
        'Where AuthnRequests go (HTTP-Redirect binding): https:// only; http:// only for a loopback ' +
        'host (localhost, 127.0.0.1, ::1), for local testing. No credentials in the URL. 422 otherwise.',
    }),
    idp_certificate: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16_384,
        description: 'The signing certificate: PEM, or its bare base64 as metadata files show it',
      }),
    ),
    enforced: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "When true, password and OAuth sign-in are refused (403) for the organization's users except " +
          'its owners, who keep them as the way back in if the identity provider fails',
      }),
    ),
  },
  { additionalProperties: false, title: 'PutSamlConfig' },
);

const IDP_FIELDS = ['idp_entity_id', 'idp_sso_url', 'idp_certificate'];
/** "The body has this field", for `not`: the field is named among the properties it requires. */
const present = (field: string) => ({ properties: { [field]: { type: 'string' } }, required: [field] });

/**
 * The identity provider comes from its metadata or from the three idp_* fields, never both. The
 * document says so with `oneOf`; the service checks it itself, so a 422 names the field at fault.
 */
export const PutSamlConfigBody = DocumentedAs(
  {
    ...PutSamlConfigFields,
    oneOf: [
      { required: ['idp_metadata_xml'], not: { anyOf: IDP_FIELDS.map(present) } },
      { required: IDP_FIELDS, not: present('idp_metadata_xml') },
    ],
  },
  PutSamlConfigFields,
);

export const SamlConfigSchema = Type.Object(
  {
    idp_entity_id: Type.String(),
    idp_sso_url: Type.String(),
    idp_certificate: Type.String({ description: 'PEM' }),
    enforced: Type.Boolean(),
    sp_entity_id: Type.String({
      description: "This service's entity id (the metadata URL): the IdP's Audience",
    }),
    sp_acs_url: Type.String({ description: 'The Assertion Consumer Service URL (HTTP-POST binding)' }),
    sp_metadata_url: Type.String(),
    login_url: Type.String({ description: 'Where users start signing in (302 to the identity provider)' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'SamlConfig' },
);

export const SamlOrgParams = Type.Object({ org_id: Uuid });

export const AcsBody = Type.Object(
  {
    SAMLResponse: Type.String({ minLength: 1, maxLength: 700_000, description: 'The base64 SAML Response' }),
    RelayState: Type.Optional(
      Type.String({ maxLength: 1024, description: 'Ignored: the sign-in lands on the web application' }),
    ),
  },
  { additionalProperties: false, title: 'SamlAcsForm' },
);

export function toSamlConfigResponse(config: SamlConfig, publicUrl: string) {
  const sp = spUrls(publicUrl, config.org_id);
  return {
    idp_entity_id: config.idp_entity_id,
    idp_sso_url: config.idp_sso_url,
    idp_certificate: config.idp_certificate,
    enforced: config.enforced,
    sp_entity_id: sp.entityId,
    sp_acs_url: sp.acsUrl,
    sp_metadata_url: sp.entityId,
    login_url: sp.loginUrl,
    created_at: toTimestamp(config.created_at),
    updated_at: toTimestamp(config.updated_at),
  };
}

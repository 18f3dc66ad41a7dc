// What the SCIM server supports (RFC 7643 §5–§7), read by identity providers before they provision:
// PATCH and filters yes (maxResults as the list's clamp), no bulk, sort, ETags or password change;
// authentication by a bearer token.
import { GROUP_SCHEMA, listResponse, USER_SCHEMA } from './scim.resources.ts';
import { MAX_RESULTS } from './scim.users.ts';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0';

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [`${CORE}:ServiceProviderConfig`],
    documentationUri: `${baseUrl.replace(/\/scim\/v2$/, '')}/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: 'The organization token made with POST /api/v1/admin/scim/token',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

const text = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export function schemas(baseUrl: string) {
  const user = {
    schemas: [`${CORE}:Schema`],
    id: USER_SCHEMA,
    name: 'User',
    description: 'A user of the organization',
    attributes: [
      text('userName', { required: true, uniqueness: 'server' }),
      {
        name: 'name',
        type: 'complex',
        multiValued: false,
        required: false,
        mutability: 'readWrite',
        returned: 'default',
        subAttributes: [text('givenName'), text('familyName'), text('formatted')],
      },
      text('displayName'),
      text('externalId', { caseExact: true }),
      {
        name: 'active',
        type: 'boolean',
        multiValued: false,
        required: false,
        mutability: 'readWrite',
        returned: 'default',
      },
      {
        name: 'emails',
        type: 'complex',
        multiValued: true,
        required: false,
        mutability: 'readWrite',
        returned: 'default',
        subAttributes: [
          text('value'),
          text('type'),
          { name: 'primary', type: 'boolean', multiValued: false },
        ],
      },
      text('password', { mutability: 'writeOnly', returned: 'never' }),
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${USER_SCHEMA}` },
  };
  const group = {
    schemas: [`${CORE}:Schema`],
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'A group pushed by the identity provider; group mappings give its members roles',
    attributes: [
      text('displayName', { required: true, uniqueness: 'server' }),
      text('externalId', { caseExact: true }),
      {
        name: 'members',
        type: 'complex',
        multiValued: true,
        required: false,
        mutability: 'readWrite',
        returned: 'default',
        subAttributes: [text('value', { caseExact: true }), text('display', { mutability: 'readOnly' })],
      },
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${GROUP_SCHEMA}` },
  };
  return [user, group];
}

export function resourceTypes(baseUrl: string) {
  const type = (id: string, endpoint: string, schema: string) => ({
    schemas: [`${CORE}:ResourceType`],
    id,
    name: id,
    endpoint,
    schema,
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/${id}` },
  });
  return [type('User', '/Users', USER_SCHEMA), type('Group', '/Groups', GROUP_SCHEMA)];
}

export const listOf = <T>(items: T[]) => listResponse(items, items.length, 1);

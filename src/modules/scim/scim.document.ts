// How /scim/v2 appears in /openapi.json: its own tag and security scheme, `application/scim+json`
// for requests and every answer (errors included), and request schemas that take what identity
// providers send and the service accepts (`op` in any case, booleans as strings, attributes the
// service does not keep). These schemas only describe: the SCIM routes check their bodies
// themselves, so that every refusal is a SCIM error with its `scimType` (see scim.routes.ts).
import { type TSchema, Type } from 'typebox';
import { NoContent, Timestamp, Uuid } from '../../http/schemas.ts';

export const SCIM_CONTENT_TYPE = 'application/scim+json';

/** The largest `startIndex` or `count` taken (PostgreSQL's integer). */
export const MAX_LIST_NUMBER = 2_147_483_647;

const ScimErrorSchema = Type.Object(
  {
    schemas: Type.Array(Type.Literal('urn:ietf:params:scim:api:messages:2.0:Error')),
    status: Type.String({ description: 'The HTTP status, as text', examples: ['400'] }),
    detail: Type.String(),
    scimType: Type.Optional(
      Type.Unsafe<string>({
        type: 'string',
        enum: [
          'invalidFilter',
          'invalidSyntax',
          'invalidValue',
          'invalidPath',
          'uniqueness',
          'mutability',
          'noTarget',
        ],
      }),
    ),
  },
  { title: 'ScimError', description: 'A SCIM error (RFC 7644 §3.12)' },
);

const scimError = (description: string) => ({ ...ScimErrorSchema, description });

/** A boolean, or its text in any case ("True", "false"): identity providers send both. */
const ScimBoolean = Type.Unsafe<boolean | string>({
  anyOf: [{ type: 'boolean' }, { type: 'string', pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$' }],
});

const Meta = Type.Object({
  resourceType: Type.String(),
  created: Timestamp,
  lastModified: Timestamp,
  location: Type.String({ format: 'uri' }),
});

const ScimUser = Type.Object(
  {
    schemas: Type.Array(Type.String()),
    id: Uuid,
    externalId: Type.Optional(Type.String()),
    userName: Type.String({ description: "The user's e-mail address" }),
    name: Type.Object({ givenName: Type.String(), familyName: Type.String(), formatted: Type.String() }),
    displayName: Type.String(),
    emails: Type.Array(Type.Object({ value: Type.String(), type: Type.String(), primary: Type.Boolean() })),
    active: Type.Boolean(),
    meta: Meta,
  },
  { title: 'ScimUser' },
);

/**
 * A member: `{value, display, $ref}`. `$ref` (the member's URL) is named through patternProperties:
 * as a property name it would read as a JSON reference to every schema tool.
 */
const GroupMember = Type.Unsafe<{ value: string; display: string }>({
  type: 'object',
  properties: { value: Uuid, display: Type.String() },
  patternProperties: { '^\\$ref$': { type: 'string', format: 'uri' } },
  required: ['value', 'display'],
});

const ScimGroup = Type.Object(
  {
    schemas: Type.Array(Type.String()),
    id: Uuid,
    externalId: Type.Optional(Type.String()),
    displayName: Type.String(),
    members: Type.Array(GroupMember),
    meta: Meta,
  },
  { title: 'ScimGroup' },
);

const listOf = (item: TSchema, title: string) =>
  Type.Object(
    {
      schemas: Type.Array(Type.String()),
      totalResults: Type.Integer({ minimum: 0 }),
      itemsPerPage: Type.Integer({ minimum: 0 }),
      startIndex: Type.Integer({ minimum: 1 }),
      Resources: Type.Array(item),
    },
    { title },
  );

/** Any SCIM resource the discovery endpoints describe (RFC 7643 §5–7). */
const ScimDiscovery = Type.Object({ schemas: Type.Array(Type.String()) }, { additionalProperties: true });

const ScimUserRequest = Type.Object(
  {
    schemas: Type.Optional(Type.Array(Type.String())),
    userName: Type.Optional(
      Type.String({ description: 'An e-mail address; required unless `emails` carries one' }),
    ),
    externalId: Type.Optional(Type.String()),
    name: Type.Optional(
      Type.Object(
        { givenName: Type.Optional(Type.String()), familyName: Type.Optional(Type.String()) },
        { additionalProperties: true },
      ),
    ),
    displayName: Type.Optional(Type.String()),
    emails: Type.Optional(
      Type.Array(
        Type.Object(
          { value: Type.String(), primary: Type.Optional(ScimBoolean) },
          { additionalProperties: true },
        ),
      ),
    ),
    active: Type.Optional(ScimBoolean),
  },
  {
    title: 'ScimUserRequest',
    additionalProperties: true,
    description:
      'A User resource as identity providers send it. Attributes of the core schema the service does not keep ' +
      '(phone numbers, addresses, titles, the enterprise extension) are accepted and ignored.',
  },
);

const ScimGroupRequest = Type.Object(
  {
    schemas: Type.Optional(Type.Array(Type.String())),
    displayName: Type.String({ minLength: 1 }),
    externalId: Type.Optional(Type.String()),
    members: Type.Optional(Type.Array(Type.Object({ value: Type.String() }, { additionalProperties: true }))),
  },
  { title: 'ScimGroupRequest', additionalProperties: true },
);

const ScimPatchRequest = Type.Object(
  {
    schemas: Type.Optional(Type.Array(Type.String())),
    Operations: Type.Array(
      Type.Object(
        {
          op: Type.String({
            pattern: '^([Aa][Dd][Dd]|[Rr][Ee][Pp][Ll][Aa][Cc][Ee]|[Rr][Ee][Mm][Oo][Vv][Ee])$',
            description: '`add`, `replace` or `remove`, in any case',
          }),
          path: Type.Optional(
            Type.String({
              description: 'An attribute, `emails[type eq "work"].value` or `members[value eq "<id>"]`',
            }),
          ),
          value: Type.Optional(Type.Unknown()),
        },
        { additionalProperties: true },
      ),
      { minItems: 1 },
    ),
  },
  {
    title: 'ScimPatchRequest',
    additionalProperties: true,
    description:
      'A PatchOp (RFC 7644 §3.5.2). Without a path, `value` is an object of attributes (nested or dotted keys); ' +
      'booleans may be sent as text.',
  },
);

const ListQuery = Type.Object({
  filter: Type.Optional(
    Type.String({
      description:
        '`<attribute> eq "<value>"`, `pr`, `and`/`or`; Users by userName, externalId, active; Groups by displayName, externalId',
    }),
  ),
  startIndex: Type.Optional(
    Type.Integer({
      minimum: -MAX_LIST_NUMBER,
      maximum: MAX_LIST_NUMBER,
      description: '1-based; below 1 reads as 1',
    }),
  ),
  count: Type.Optional(
    Type.Integer({ minimum: -MAX_LIST_NUMBER, maximum: MAX_LIST_NUMBER, description: 'Below 0 reads as 0' }),
  ),
});
const IdParams = Type.Object({ id: Type.String() });

/** The answers every SCIM operation may give, besides its own. */
const ALWAYS = {
  401: scimError('No valid SCIM token (`WWW-Authenticate: Bearer`)'),
  429: scimError(
    'Rate limit exceeded: 300 requests a minute per organization (per client address before authentication)',
  ),
  500: scimError('An unexpected error'),
  503: scimError('The service store is unreachable; try again'),
};
const WITH_BODY = {
  400: scimError('The body is not valid JSON or not a valid resource (`scimType` says which rule)'),
  413: scimError('The body is larger than 1 MiB'),
  415: scimError(`A media type other than ${SCIM_CONTENT_TYPE} or application/json`),
};
const NOT_FOUND = { 404: scimError('No such resource in the organization') };
const CONFLICT = {
  409: scimError('The userName, displayName or externalId is taken (`scimType: uniqueness`)'),
};

/** The route schema of one /scim/v2 operation. */
function operation<const Parts extends { response: object }>(summary: string, parts: Parts) {
  return {
    tags: ['SCIM'],
    summary,
    // The scheme is declared with the document's others (src/http/openapi.ts).
    security: [{ scimBearer: [] as string[] }],
    consumes: [SCIM_CONTENT_TYPE, 'application/json'],
    produces: [SCIM_CONTENT_TYPE],
    ...parts,
    response: { ...ALWAYS, ...parts.response } as typeof ALWAYS & Parts['response'],
  };
}

const list = (item: TSchema, title: string, what: string) =>
  operation(`List ${what}`, {
    querystring: ListQuery,
    response: { 200: listOf(item, title), 400: scimError('An invalid filter, startIndex or count') },
  });
const read = (schema: TSchema, what: string) =>
  operation(`Read ${what}`, { params: IdParams, response: { 200: schema, ...NOT_FOUND } });
const create = (body: TSchema, schema: TSchema, what: string) =>
  operation(`Create ${what}`, { body, response: { 201: schema, ...WITH_BODY, ...CONFLICT } });
const replace = (body: TSchema, schema: TSchema, what: string) =>
  operation(`Replace ${what}`, {
    params: IdParams,
    body,
    response: { 200: schema, ...WITH_BODY, ...NOT_FOUND, ...CONFLICT },
  });
const patch = (schema: TSchema, what: string) =>
  operation(`Change ${what} attribute by attribute`, {
    params: IdParams,
    body: ScimPatchRequest,
    response: { 200: schema, ...WITH_BODY, ...NOT_FOUND, ...CONFLICT },
  });
const remove = (what: string) =>
  operation(`Delete ${what}`, { params: IdParams, response: { 204: NoContent, ...NOT_FOUND } });

/** The route schemas of /scim/v2, by route; the operationId is `scim` and the route's name. */
export const SCIM_ROUTES = withOperationIds({
  listUsers: list(ScimUser, 'ScimUserList', 'users'),
  createUser: create(ScimUserRequest, ScimUser, 'a user'),
  readUser: read(ScimUser, 'a user'),
  replaceUser: replace(ScimUserRequest, ScimUser, 'a user'),
  patchUser: patch(ScimUser, 'a user'),
  removeUser: {
    ...remove('a user'),
    description: 'Deactivates the user for good and revokes their API keys; the last active owner cannot go.',
  },
  listGroups: list(ScimGroup, 'ScimGroupList', 'groups'),
  createGroup: create(ScimGroupRequest, ScimGroup, 'a group'),
  readGroup: read(ScimGroup, 'a group'),
  replaceGroup: replace(ScimGroupRequest, ScimGroup, 'a group'),
  patchGroup: patch(ScimGroup, 'a group'),
  removeGroup: remove('a group'),
  serviceProviderConfig: operation('What this SCIM service supports', { response: { 200: ScimDiscovery } }),
  listSchemas: operation('The resource schemas', { response: { 200: ScimDiscovery } }),
  readSchema: operation('One resource schema', {
    params: IdParams,
    response: { 200: ScimDiscovery, ...NOT_FOUND },
  }),
  listResourceTypes: operation('The resource types', { response: { 200: ScimDiscovery } }),
  readResourceType: operation('One resource type', {
    params: IdParams,
    response: { 200: ScimDiscovery, ...NOT_FOUND },
  }),
});

function withOperationIds<const Routes extends Record<string, object>>(routes: Routes) {
  const named = Object.entries(routes).map(([name, route]) => [
    name,
    { ...route, operationId: `scim${name[0]?.toUpperCase()}${name.slice(1)}` },
  ]);
  return Object.fromEntries(named) as { [Name in keyof Routes]: Routes[Name] & { operationId: string } };
}

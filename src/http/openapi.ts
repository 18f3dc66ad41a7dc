// The OpenAPI 3.1 description, generated from the route schemas (/openapi.json), and the
// interactive docs (/docs). Security requirements are derived from each route's auth settings, so
// the document says exactly which routes take a session (with the CSRF header when mutating) or a key.
// Every /api/v1 operation also documents the rate-limit headers on each response, its 429 (docs/contract.md §4)
// and its 503 (the store unreachable).
// Schemas with a `title` become named components (what client generators turn into type names), and
// a request body with no required field is marked optional, as the validator treats none as `{}`.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { TARGET_ERROR_CAUSES, TARGET_ERROR_HEADER } from '../dialects/errors.ts';
import { BODY_ERRORS, DOCUMENTED_AS } from './schemas.ts';

const SESSION = { sessionCookie: [] as string[] };
const SESSION_WITH_CSRF = { sessionCookie: [] as string[], csrfHeader: [] as string[] };
const BEARER = { apiKey: [] as string[] };

export async function registerOpenApi(app: FastifyInstance, info: { version: string }): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.schema ??= {};
    // Any route but GET reads a body when one is sent (whether or not it takes one): past the body
    // limit it answers 413, and 415 for a media type it does not parse, before its handler runs.
    // Declared here once rather than on every route.
    const methods = [route.method].flat();
    if (!methods.includes('GET') && !methods.includes('HEAD') && route.schema.response !== undefined)
      route.schema.response = { ...BODY_ERRORS, ...(route.schema.response as object) };
    const schema = route.schema as { security?: unknown; hide?: boolean };
    if (schema.security !== undefined || schema.hide) return;
    if (route.config?.auth === 'public') schema.security = [];
    else if (route.config?.auth === 'session')
      schema.security = [route.method === 'GET' ? SESSION : SESSION_WITH_CSRF];
    else schema.security = route.method === 'GET' ? [SESSION, BEARER] : [SESSION_WITH_CSRF, BEARER];
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'dbops',
        version: info.version,
        description:
          'Database operations for PostgreSQL and MySQL: projects, connections, patches, seeding, ' +
          'anonymization, copy, migrations and drift detection, with approvals and audit.\n\n' +
          'Errors are `{detail}`; validation errors are `{detail: [{loc, msg, type}]}` with status 422.\n\n' +
          'Bounds on every operation: a body is at most 1 MiB (413) and nests objects and arrays at ' +
          'most 32 levels deep (422 `loc: ["body"]`, type `too_deep`, answered before any other work); ' +
          '`page` is at most 1,000,000. Every DELETE needs the `admin` scope of an API key.',
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'session',
            description: 'Set by POST /api/v1/auth/login',
          },
          csrfHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description: 'Mutating session requests echo the csrf_token cookie here',
          },
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: ak_<prefix>_<secret>' },
          scimBearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'The organization SCIM token (POST /api/v1/admin/scim/token), on /scim/v2 only; sessions and API keys are refused there',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) =>
      'openapiObject' in document
        ? withOptionalBodies(withNamedSchemas(withSharedResponses(document.openapiObject as OpenApiDocument)))
        : document.swaggerObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

interface OpenApiResponse {
  headers?: Record<string, unknown>;
  [key: string]: unknown;
}

interface OpenApiOperation {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, OpenApiResponse>;
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: Record<string, Record<string, unknown>>;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Lifts every schema with a `title` into `components.schemas[title]` and puts a `$ref` in its
 * place, innermost first, so a body used by ten operations is one component. Two different schemas
 * with one title would make one of them lie: that stops the document from being built.
 */
function withNamedSchemas(doc: OpenApiDocument): OpenApiDocument {
  doc.components ??= {};
  doc.components.schemas ??= {};
  const components = doc.components.schemas as Record<string, Record<string, Json>>;
  const texts = new Map<string, string>();
  const lift = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(lift);
    if (node === null || typeof node !== 'object') return node;
    const documented = (node as Record<string, Json>)[DOCUMENTED_AS];
    if (documented !== undefined) return lift(documented);
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(node)) {
      // Examples and defaults are values, not schemas.
      out[key] = key === 'examples' || key === 'default' || key === 'example' ? value : lift(value);
    }
    const title = out.title;
    if (typeof title !== 'string' || !isSchema(out)) return out;
    // Nullable(named) is the named schema or null: the component itself is never null.
    if (Array.isArray(out.type) && out.type.includes('null')) {
      const types = out.type.filter((type) => type !== 'null');
      return {
        anyOf: [named(title, { ...out, type: types.length === 1 ? types[0]! : types }), { type: 'null' }],
      };
    }
    return named(title, out);
  };
  const named = (title: string, out: Record<string, Json>): Json => {
    // A use may describe the schema in its own words (`{...ApprovalSchema, description}`): that
    // stays beside the reference, as OpenAPI 3.1 allows.
    const { description, ...shape } = out;
    const text = JSON.stringify(shape);
    const known = texts.get(title);
    if (known !== undefined && known !== text) {
      throw new Error(`Two different schemas are named ${title} in the OpenAPI document`);
    }
    const ref: Record<string, Json> = { $ref: `#/components/schemas/${title}` };
    if (known === undefined) {
      texts.set(title, text);
      components[title] = out;
    } else if (description !== undefined && description !== components[title]?.description) {
      ref.description = description;
    }
    return ref;
  };
  doc.paths = lift(doc.paths as Json) as OpenApiDocument['paths'];
  return doc;
}

const SCHEMA_KEYWORDS = ['type', 'properties', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref'];
function isSchema(node: Record<string, Json>): boolean {
  return SCHEMA_KEYWORDS.some((keyword) => keyword in node);
}

/** A body whose schema requires nothing may be left out (the validator reads no body as `{}`). */
function withOptionalBodies(doc: OpenApiDocument): OpenApiDocument {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, { required?: string[]; oneOf?: unknown }>;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!OPERATIONS.has(method) || operation.requestBody === undefined) continue;
      const media = Object.values(operation.requestBody.content ?? {})[0];
      let schema = media?.schema as { $ref?: string; required?: string[]; oneOf?: unknown } | undefined;
      if (schema?.$ref?.startsWith('#/components/schemas/'))
        schema = schemas[schema.$ref.slice('#/components/schemas/'.length)];
      // Alternatives (`oneOf`) that each require a field make a body required after all.
      if (schema !== undefined && (schema.required ?? []).length === 0 && schema.oneOf === undefined)
        operation.requestBody.required = false;
    }
  }
  return doc;
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the window of the most restrictive limit that applies',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that window (a heavy operation or a page_size over 100 counts 10)',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'When that window resets, in Unix seconds (windows are aligned to the minute or the hour)',
    schema: { type: 'integer' },
  },
};
/** What a 502 says of its cause, besides its message (a refused login must not be tried again). */
const TARGET_CAUSE_HEADER = {
  description:
    'Why the target database failed: a client must not retry `authentication_failed` by itself (it trips lockouts)',
  schema: { type: 'string', enum: [...TARGET_ERROR_CAUSES] },
};
const HEADER_REFS = Object.fromEntries(
  Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);
const OPERATIONS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * Adds to every /api/v1 operation what any of them can answer: the rate-limit headers on every
 * response, 429 past a limit, and 503 while the service's store is unreachable or the process is
 * shutting down (both with Retry-After).
 */
function withSharedResponses(doc: OpenApiDocument): OpenApiDocument {
  doc.components ??= {};
  doc.components.headers = {
    ...doc.components.headers,
    ...RATE_LIMIT_HEADERS,
    'Retry-After': {
      description: 'Seconds to wait before trying again',
      schema: { type: 'integer', minimum: 1 },
    },
  };
  doc.components.responses = {
    ...doc.components.responses,
    RateLimited: {
      description: 'Rate limit exceeded: `{"detail": "Rate limit exceeded: 5 per 1 minute"}`',
      headers: { ...HEADER_REFS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
    Unavailable: {
      description:
        'The service store is unreachable, or the process is shutting down: retry after `Retry-After` seconds',
      headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!OPERATIONS.has(method)) continue;
      operation.responses ??= {};
      for (const response of Object.values(operation.responses)) {
        response.headers = { ...response.headers, ...HEADER_REFS };
      }
      operation.responses['429'] = { $ref: '#/components/responses/RateLimited' };
      const unreachable = operation.responses['502'];
      if (unreachable && !('$ref' in unreachable))
        unreachable.headers = { ...unreachable.headers, [TARGET_ERROR_HEADER]: TARGET_CAUSE_HEADER };
      operation.responses['503'] ??= { $ref: '#/components/responses/Unavailable' };
    }
  }
  return doc;
}

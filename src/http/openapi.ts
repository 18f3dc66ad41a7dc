// The OpenAPI 3.1 description, generated from the route schemas (/openapi.json), and the
// interactive docs (/docs). Security requirements are derived from each route's auth settings, so
// the document says exactly which routes take a session (with the CSRF header when mutating) or a key.
// Every /api/v1 operation also documents the rate-limit headers on each response and its 429 (API §4).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

const SESSION = { sessionCookie: [] as string[] };
const SESSION_WITH_CSRF = { sessionCookie: [] as string[], csrfHeader: [] as string[] };
const BEARER = { apiKey: [] as string[] };

export async function registerOpenApi(app: FastifyInstance, info: { version: string }): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.schema ??= {};
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
          'Errors are `{detail}`; validation errors are `{detail: [{loc, msg, type}]}` with status 422.',
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
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) =>
      'openapiObject' in document
        ? withRateLimits(document.openapiObject as OpenApiDocument)
        : document.swaggerObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

interface OpenApiResponse {
  headers?: Record<string, unknown>;
  [key: string]: unknown;
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
  components?: Record<string, Record<string, unknown>>;
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
const HEADER_REFS = Object.fromEntries(
  Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
);
const OPERATIONS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Adds the rate-limit headers to every response of every /api/v1 operation, and the 429 response. */
function withRateLimits(doc: OpenApiDocument): OpenApiDocument {
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
    }
  }
  return doc;
}

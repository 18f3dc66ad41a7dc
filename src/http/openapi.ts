// The OpenAPI 3.1 description, generated from the route schemas (/openapi.json), and the
// interactive docs (/docs). Security requirements are derived from each route's auth settings, so
// the document says exactly which routes take a session (with the CSRF header when mutating) or a key.
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
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

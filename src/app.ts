// buildApp: the Fastify instance with its cross-cutting plugins (request ids, errors, validation,
// cookies, CORS, security headers, authentication, OpenAPI) and every module's routes under /api/v1.
// Services are created here from explicit dependencies; nothing is hung on the Fastify instance.
import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.ts';
import { registerAuthentication } from './http/auth.ts';
import { corsOptions } from './http/cors.ts';
import { registerErrorHandlers } from './http/errors.ts';
import { registerOpenApi } from './http/openapi.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { createMemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.ts';
import { ErrorBody, ValidationErrorBody } from './http/schemas.ts';
import type { App } from './http/types.ts';
import { createValidatorCompiler } from './http/validation.ts';
import { registerApiKeysRoutes } from './modules/api-keys/api-keys.routes.ts';
import { createApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { registerAuditRoutes } from './modules/audit/audit.routes.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { registerAuthRoutes, sessionCookieWriter } from './modules/auth/auth.routes.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { registerOAuthRoutes } from './modules/auth/oauth.routes.ts';
import { createOAuthService } from './modules/auth/oauth.service.ts';
import { createOAuthProviders } from './modules/auth/oauth-providers.ts';
import { createSignupService } from './modules/auth/signup.service.ts';
import { registerTwoFactorRoutes } from './modules/auth/two-factor.routes.ts';
import { createTwoFactorService } from './modules/auth/two-factor.service.ts';
import { registerOrgsRoutes } from './modules/orgs/orgs.routes.ts';
import { createOrgsService } from './modules/orgs/orgs.service.ts';
import { registerProjectsRoutes } from './modules/projects/projects.routes.ts';
import { createProjectsService } from './modules/projects/projects.service.ts';
import { registerUsersRoutes } from './modules/users/users.routes.ts';
import { createUsersService } from './modules/users/users.service.ts';
import type { PasswordHasher } from './security/passwords.ts';
import { createSecretBox } from './security/secret-box.ts';
import type { Db } from './store/db.ts';
import { isMigrated } from './store/migrate.ts';
import { VERSION } from './version.ts';

export interface AppDeps {
  config: Pick<
    Config,
    | 'logLevel'
    | 'corsOrigins'
    | 'trustedProxies'
    | 'cookieSecure'
    | 'sessionTtlHours'
    | 'signupOpen'
    | 'publicUrl'
    | 'oauth'
  >;
  db: Db;
  secretKey: Buffer;
  passwords: PasswordHasher;
  now?: () => Date;
  /** A ready logger (tests capture lines with it); otherwise pino at config.logLevel. */
  logger?: FastifyBaseLogger;
  /** Rate-limit counters (Redis when REDIS_URL is set, closed by the caller); otherwise in memory. */
  rateLimitStore?: RateLimitStore;
}

export const BODY_LIMIT = 1024 * 1024;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Never in a log line: credentials in headers and any field that may carry a secret. */
export const LOG_REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.current_password',
  '*.new_password',
  '*.secret',
  '*.token',
  '*.partial_token',
  '*.recovery_codes',
  '*.otpauth_url',
];

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db, secretKey, passwords } = deps;
  const now = deps.now ?? (() => new Date());

  const options: FastifyServerOptions = {
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false } },
  };
  const fastify = deps.logger
    ? Fastify({ ...options, loggerInstance: deps.logger })
    : Fastify({
        ...options,
        logger: { level: config.logLevel, redact: { paths: LOG_REDACT, censor: '[redacted]' } },
      });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>() as App;

  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandlers(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  acceptOnlyJson(app);
  app.addSchema(ErrorBody);
  app.addSchema(ValidationErrorBody);

  // A JSON API: no inline content, so the strict default CSP of helmet only gets in the way of /docs.
  await app.register(helmet, { contentSecurityPolicy: false });
  await app.register(cors, corsOptions(config.corsOrigins));
  await app.register(cookie);
  await registerOpenApi(app, { version: VERSION });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const ready = await isMigrated(db).catch(() => false);
    return ready
      ? { status: 'ready' }
      : reply.code(503).send({ detail: 'Store unreachable or not migrated' });
  });

  const audit = createAuditService({ db, now });
  const box = createSecretBox(secretKey);
  const twoFactor = createTwoFactorService({ db, audit, box, now });
  const services = {
    audit,
    auth: createAuthService({
      db,
      audit,
      passwords,
      now,
      sessionTtlHours: config.sessionTtlHours,
      twoFactor,
    }),
    twoFactor,
    orgs: createOrgsService({ db, audit, passwords, now }),
    users: createUsersService({ db, audit, passwords, now }),
    projects: createProjectsService({ db, audit, now }),
    apiKeys: createApiKeysService({ db, audit, now }),
  };
  const oauth = createOAuthService({
    db,
    audit,
    auth: services.auth,
    orgs: services.orgs,
    box,
    providers: createOAuthProviders(
      config.oauth,
      (provider) => `${config.publicUrl}/api/v1/auth/oauth/${provider}/callback`,
    ),
    signupOpen: config.signupOpen,
    now,
  });

  await app.register(
    async (api) => {
      const limiter = createRateLimiter({
        store: deps.rateLimitStore ?? createMemoryRateLimitStore({ now }),
        now,
      });
      registerAuthentication(api, { db, secretKey, now, limitRate: limiter.limitApiRequest });
      // Unknown /api/v1 routes pass through the hooks above too: they are counted and carry the
      // X-RateLimit-* headers like every /api/v1 response (API §4).
      api.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
      registerAuthRoutes(api, {
        auth: services.auth,
        signup: createSignupService({
          orgs: services.orgs,
          auth: services.auth,
          signupOpen: config.signupOpen,
        }),
        secretKey,
        cookieSecure: config.cookieSecure,
      });
      registerTwoFactorRoutes(api, services);
      registerOAuthRoutes(api, {
        oauth,
        publicUrl: config.publicUrl,
        cookieSecure: config.cookieSecure,
        setSessionCookies: sessionCookieWriter({ secretKey, cookieSecure: config.cookieSecure }),
      });
      registerOrgsRoutes(api, services);
      registerUsersRoutes(api, services);
      registerProjectsRoutes(api, services);
      registerApiKeysRoutes(api, services);
      registerAuditRoutes(api, services);
    },
    { prefix: '/api/v1' },
  );

  return app;
}

/**
 * JSON bodies only: text/plain (which Fastify parses by default) is refused with 415 like any other
 * type, and an empty JSON body reads as no body, so a DELETE sent with a JSON content type still works.
 */
function acceptOnlyJson(app: App): void {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });
}

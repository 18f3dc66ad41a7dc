// buildApp: the Fastify instance with its cross-cutting plugins (request ids, errors, validation,
// cookies, CORS, security headers, authentication, OpenAPI) and every module's routes under /api/v1.
// Services come built from the composition root (src/compose.ts); nothing is hung on the Fastify instance.
import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions, LogController } from 'fastify';
import type { Composition } from './compose.ts';
import { AppError } from './core/errors.ts';
import { registerAuthentication } from './http/auth.ts';
import { bodyDepthError } from './http/body-depth.ts';
import { corsOptions } from './http/cors.ts';
import { registerDeniedAudit } from './http/denied-audit.ts';
import { registerErrorHandlers } from './http/errors.ts';
import { registerHealthRoutes } from './http/health.ts';
import { registerNulGuard } from './http/nul-guard.ts';
import { registerOpenApi } from './http/openapi.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { ErrorBody, ValidationErrorBody } from './http/schemas.ts';
import type { App } from './http/types.ts';
import { createValidatorCompiler } from './http/validation.ts';
import { createCredentialLookup } from './modules/auth/credentials.ts';
import { registerHttpHooks } from './observability/http-hooks.ts';
import { isMigrated } from './store/migrate.ts';
import { VERSION } from './version.ts';
import { createWebApp } from './web/serve-web-app.ts';
import { WEB_DIST } from './web/web-build.ts';

export const BODY_LIMIT = 1024 * 1024;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface BuildAppOptions {
  /** The built web application served at `/` (default: the repository's web/dist). */
  webRoot?: string;
}

export async function buildApp(composition: Composition, appOptions: BuildAppOptions = {}): Promise<App> {
  const { config, db, audit, now, secretKey } = composition;
  const options: FastifyServerOptions = {
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false } },
    // One line per request, when it completes, written by ./observability/http-hooks.ts.
    logController: new LogController({ disableRequestLogging: true }),
  };
  // A child: the server's own level can change (src/main.ts quiets its listening lines) alone.
  const fastify = Fastify({ ...options, loggerInstance: composition.logger.child({}) as FastifyBaseLogger });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>() as App;
  registerHttpHooks(app);

  const webApp = createWebApp({
    root: appOptions.webRoot ?? WEB_DIST,
    oauthProviders: Object.entries(config.oauth)
      .filter(([, provider]) => provider !== undefined)
      .map(([name]) => name),
    signupOpen: config.signupOpen,
  });
  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandlers(app, webApp.notFound);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  acceptOnlyJson(app);
  registerNulGuard(app);
  app.addSchema(ErrorBody);
  app.addSchema(ValidationErrorBody);

  // A JSON API: no inline content, so the strict default CSP of helmet only gets in the way of /docs.
  await app.register(helmet, { contentSecurityPolicy: false });
  await app.register(cors, corsOptions(config.corsOrigins));
  await app.register(cookie);
  await registerOpenApi(app, { version: VERSION });

  registerHealthRoutes(app, { isReady: () => isMigrated(db) });

  registerDeniedAudit(app, (actor, details) =>
    audit.record(db, actor, { action: 'request.denied', outcome: 'denied', details }),
  );

  await app.register(
    async (api) => {
      const limiter = createRateLimiter({ store: composition.rateLimitStore, now });
      registerAuthentication(api, {
        credentials: createCredentialLookup({ db, now, epoch: composition.credentialEpoch }),
        secretKey,
        limitRate: limiter.limitApiRequest,
      });
      // Unknown /api/v1 routes pass through the hooks above too: they are counted and carry the
      // X-RateLimit-* headers like every /api/v1 response (docs/contract.md §4).
      api.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
      for (const module of composition.modules) module.routes?.(api);
    },
    { prefix: '/api/v1' },
  );
  for (const mount of composition.modules.flatMap((m) => m.mounts ?? []))
    await app.register(async (scope) => mount.register(scope as App), { prefix: mount.prefix });

  await webApp.register(app);

  return app;
}

/**
 * JSON bodies only: text/plain (which Fastify parses by default) is refused with 415 like any other
 * type, and an empty JSON body reads as no body, so a DELETE sent with a JSON content type still works.
 * The nesting bound is judged on the raw text first (./http/body-depth.ts), before anything parses
 * or walks the body: every route of this scope gets it, public ones included.
 */
function acceptOnlyJson(app: App): void {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    const tooDeep = bodyDepthError(body as string);
    if (tooDeep) return done(tooDeep);
    return parseJson(request, body as string, (error, value) => {
      // A JSON `null` is a body that is not an object: 422, also where the body is optional (docs/contract.md §1),
      // which the validator could not tell from no body at all (both reach it as null).
      if (!error && value === null)
        return done(
          new AppError('validation', [
            { loc: ['body'], msg: 'Input should be an object', type: 'model_type' },
          ]),
        );
      return done(error, value);
    });
  });
}

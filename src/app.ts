// buildApp: the Fastify instance with its cross-cutting plugins (request ids, errors, validation,
// cookies, CORS, security headers, authentication, OpenAPI) and every module's routes under /api/v1.
// Services are created here from explicit dependencies; nothing is hung on the Fastify instance.
import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import { type Config, TARGET_DEFAULTS, type TargetsConfig } from './config.ts';
import type { TargetDialect } from './dialects/index.ts';
import type { DialectName } from './engine/schema/model.ts';
import { registerAuthentication } from './http/auth.ts';
import { corsOptions } from './http/cors.ts';
import { registerDeniedAudit } from './http/denied-audit.ts';
import { registerErrorHandlers } from './http/errors.ts';
import { registerHealthRoutes } from './http/health.ts';
import { registerOpenApi } from './http/openapi.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { createMemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.ts';
import { ErrorBody, ValidationErrorBody } from './http/schemas.ts';
import type { App } from './http/types.ts';
import { createValidatorCompiler } from './http/validation.ts';
import { registerAccessRequestsRoutes } from './modules/access-requests/access-requests.routes.ts';
import { createAccessRequestsService } from './modules/access-requests/access-requests.service.ts';
import { registerApiKeysRoutes } from './modules/api-keys/api-keys.routes.ts';
import { createApiKeysService } from './modules/api-keys/api-keys.service.ts';
import { createApprovalGate } from './modules/approvals/approval-gate.ts';
import { registerApprovalsRoutes } from './modules/approvals/approvals.routes.ts';
import { createApprovalsService } from './modules/approvals/approvals.service.ts';
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
import { registerConnectionsRoutes } from './modules/connections/connections.routes.ts';
import { createTargetAccess } from './modules/connections/target-access.ts';
import type { Resolver } from './modules/connections/target-guard.ts';
import { registerDriftRoutes } from './modules/drift/drift.routes.ts';
import { createDriftService } from './modules/drift/drift.service.ts';
import { createDriftChecker, type DriftAlertQueue } from './modules/drift/drift-check.ts';
import { registerMigrationsRoutes } from './modules/migrations/migrations.routes.ts';
import { createMigrationsService } from './modules/migrations/migrations.service.ts';
import { registerOrgsRoutes } from './modules/orgs/orgs.routes.ts';
import { createOrgsService } from './modules/orgs/orgs.service.ts';
import { registerPatchesRoutes } from './modules/patches/patches.routes.ts';
import { createPatchesService } from './modules/patches/patches.service.ts';
import { registerProjectsRoutes } from './modules/projects/projects.routes.ts';
import { createProjectsService } from './modules/projects/projects.service.ts';
import { registerRunsRoutes } from './modules/runs/runs.routes.ts';
import { createRunsService, type RunQueue } from './modules/runs/runs.service.ts';
import { registerSnapshotsRoutes } from './modules/snapshots/snapshots.routes.ts';
import { createSnapshotsService } from './modules/snapshots/snapshots.service.ts';
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
  > & {
    /** Connections to target databases; TARGET_DEFAULTS when absent. */
    targets?: TargetsConfig;
  };
  db: Db;
  secretKey: Buffer;
  passwords: PasswordHasher;
  now?: () => Date;
  /** A ready logger (tests capture lines with it); otherwise pino at config.logLevel. */
  logger?: FastifyBaseLogger;
  /** Rate-limit counters (Redis when REDIS_URL is set, closed by the caller); otherwise in memory. */
  rateLimitStore?: RateLimitStore;
  /** Where new runs go to be worked (the pg-boss queue on the store). */
  runQueue: RunQueue;
  /** The target database dialects; the real ones by default (tests wrap them to watch connects). */
  dialects?: Record<DialectName, TargetDialect>;
  /** How connection hosts resolve for the address guard; the system resolver by default. */
  resolveHost?: Resolver;
  /**
   * Where new drift reports' alerts go (the `send_drift_alert` job). Without it none is queued at
   * once, and each `drift_check` pass sends the alerts still pending.
   */
  driftAlerts?: DriftAlertQueue;
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

  registerHealthRoutes(app, { isReady: () => isMigrated(db) });

  const audit = createAuditService({ db, now });
  registerDeniedAudit(app, { db, audit });
  const box = createSecretBox(secretKey);
  const twoFactor = createTwoFactorService({ db, audit, box, now });
  const targets = config.targets ?? TARGET_DEFAULTS;
  const { connections, close: closeTargets } = createTargetAccess({
    db,
    audit,
    box,
    now,
    targets,
    dialects: deps.dialects,
    resolveHost: deps.resolveHost,
  });
  // The target pools belong to the app: they close with it.
  app.addHook('onClose', closeTargets);
  const runs = createRunsService({ db, audit, queue: deps.runQueue, now });
  const snapshots = createSnapshotsService({ db, audit, connections, now });
  const driftChecker = createDriftChecker({
    db,
    audit,
    snapshots,
    alerts: deps.driftAlerts ?? { enqueue: async () => {} },
    logger: app.log,
    now,
  });
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
    connections,
    snapshots,
    drift: createDriftService({ db, audit, snapshots, checker: driftChecker, now }),
    runs,
    approvals: createApprovalsService({ db, audit, runs, now }),
    accessRequests: createAccessRequestsService({ db, audit, now }),
    migrations: createMigrationsService({
      db,
      audit,
      connections,
      runs,
      gate: createApprovalGate({ audit, now }),
      now,
    }),
    patches: createPatchesService({
      db,
      audit,
      connections,
      gate: createApprovalGate({ audit, now }),
      runs,
      now,
      statementTimeoutMs: targets.statementTimeoutMs,
    }),
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
      registerConnectionsRoutes(api, services);
      registerSnapshotsRoutes(api, services);
      registerDriftRoutes(api, services);
      registerRunsRoutes(api, services);
      registerApprovalsRoutes(api, services);
      registerAccessRequestsRoutes(api, services);
      registerMigrationsRoutes(api, services);
      registerPatchesRoutes(api, services);
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

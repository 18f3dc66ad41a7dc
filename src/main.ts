// Process entry: `serve` (default), `worker`, `migrate`, `create-admin`, `set-plan`, `openapi`.
// Configuration errors and a busy embedded store end the process with one clear line.
import { parseArgs } from 'node:util';
import pino from 'pino';
import { buildApp, LOG_REDACT } from './app.ts';
import { bootstrapAdmin, createAdmin } from './bootstrap.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { cliActor } from './core/actors.ts';
import { AppError } from './core/errors.ts';
import {
  createRedisRateLimitStore,
  type RateLimitStore,
  RedisUnavailableError,
} from './http/rate-limit-store.ts';
import type { App } from './http/types.ts';
import { createDriftAlertQueue, createJobs, createRunQueue, registerJobHandlers } from './jobs/index.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { createBillingService } from './modules/billing/billing.service.ts';
import { PLAN_IDS, PLANS, rateLimitsOf } from './modules/billing/plans.ts';
import { createPasswordHasher } from './security/passwords.ts';
import { resolveSecretKey } from './security/secret-key.ts';
import { DataDirBusyError } from './store/data-dir-lock.ts';
import { openStore, type Store, storeLocation } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';

const USAGE = `Usage: npm run cli -- <command>
  serve                      start the API (and the job worker, unless JOBS_IN_SERVER=false)
  worker                     work the job queue only (needs DATABASE_URL)
  migrate                    apply the store migrations
  create-admin --email E --password P --org NAME [--name N]
                             create an organization and its owner
  set-plan --org ID|NAME --plan ${PLAN_IDS.join('|')} [--per-minute N] [--per-hour N]
                             set an organization's plan; Enterprise may have its own rate
                             limits (limits not given go back to the plan's default)
  openapi                    print the OpenAPI description`;

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'worker':
      return worker(config);
    case 'migrate':
      return withStore(config, async (store) => {
        const applied = await migrateToLatest(store.db);
        console.log(applied.length ? `Applied ${applied.join(', ')}` : 'The store is up to date');
      });
    case 'create-admin':
      return withStore(config, async (store) => {
        const { values } = parseArgs({
          args: rest,
          options: {
            email: { type: 'string' },
            password: { type: 'string' },
            org: { type: 'string' },
            name: { type: 'string' },
          },
        });
        if (!values.email || !values.password || !values.org)
          throw new UsageError('create-admin needs --email, --password and --org');
        await migrateToLatest(store.db);
        const { org, owner } = await createAdmin(store.db, config, {
          email: values.email,
          password: values.password,
          orgName: values.org,
          name: values.name,
        });
        console.log(`Created organization "${org.name}" (${org.id}) with owner ${owner.email}`);
      });
    case 'set-plan':
      return withStore(config, (store) => setPlan(store, rest));
    case 'openapi': {
      const app = await buildApp({
        config: { ...config, logLevel: 'silent' },
        db: undefined as never,
        secretKey: Buffer.alloc(32),
        passwords: undefined as never,
        runQueue: undefined as never,
      });
      await app.ready();
      process.stdout.write(`${JSON.stringify(app.swagger(), null, 2)}\n`);
      return;
    }
    default:
      throw new UsageError(`Unknown command "${command}"\n${USAGE}`);
  }
}

class UsageError extends Error {}

async function setPlan(store: Store, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: 'string' },
      plan: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-hour': { type: 'string' },
    },
  });
  if (!values.org || !values.plan) throw new UsageError(`set-plan needs --org and --plan\n${USAGE}`);
  const count = (name: 'per-minute' | 'per-hour'): number | undefined => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a positive integer (got "${raw}")`);
    return Number(raw);
  };
  const perMinute = count('per-minute');
  const perHour = count('per-hour');
  await migrateToLatest(store.db);
  const now = () => new Date();
  const billing = createBillingService({
    db: store.db,
    audit: createAuditService({ db: store.db, now }),
    now,
  });
  const org = await billing.setPlan(cliActor('set-plan'), {
    org: values.org,
    plan: values.plan,
    perMinute,
    perHour,
  });
  const limits = rateLimitsOf(org.plan, {
    perMinute: org.rate_limit_per_minute,
    perHour: org.rate_limit_per_hour,
  });
  const custom = org.rate_limit_per_minute !== null || org.rate_limit_per_hour !== null;
  console.log(
    `Organization "${org.name}" (${org.id}) is on the ${PLANS[org.plan].name} plan: ` +
      `${limits.perMinute} requests per minute and ${limits.perHour} per hour per user` +
      (custom ? ' (its own limits)' : ''),
  );
}

async function withStore(config: Config, work: (store: Store) => Promise<void>): Promise<void> {
  const store = await openStore(storeLocation(config));
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

async function serve(config: Config): Promise<void> {
  const store = await openStore(storeLocation(config));
  await migrateToLatest(store.db);
  const secretKey = resolveSecretKey(config);
  const passwords = await createPasswordHasher(config.argon2);
  let app: App | undefined;
  const rateLimitStore = config.redisUrl ? await connectRedis(config.redisUrl, () => app?.log) : undefined;
  const logger = createLogger(config);
  // The queue runs in every serve process, to send runs; it works them only with JOBS_IN_SERVER.
  const jobs = createJobs({ store, logger });
  await jobs.start();
  app = await buildApp({
    config,
    db: store.db,
    secretKey,
    passwords,
    rateLimitStore,
    logger,
    runQueue: createRunQueue(jobs),
    driftAlerts: createDriftAlertQueue(jobs),
  });
  await bootstrapAdmin(store.db, config, app.log);
  const closeHandlers = config.jobsInServer
    ? await registerJobHandlers(jobs, { db: store.db, logger, config, secretKey })
    : undefined;
  onShutdown(async () => {
    await app.close();
    await rateLimitStore?.close();
    await jobs.stop();
    await closeHandlers?.();
    await store.close();
  });
  await app.listen({ port: config.port, host: config.host });
}

/** The shared rate-limit counters; connection trouble is logged at most once a minute. */
async function connectRedis(
  url: string,
  log: () => { warn(o: object, msg: string): void } | undefined,
): Promise<RateLimitStore> {
  let lastLogged = 0;
  return createRedisRateLimitStore({
    url,
    onError: (error) => {
      if (Date.now() - lastLogged < 60_000) return;
      lastLogged = Date.now();
      log()?.warn({ err: error }, 'Redis (rate-limit counters) unreachable: requests are not counted');
    },
  });
}

async function worker(config: Config): Promise<void> {
  if (!config.databaseUrl) {
    throw new ConfigError(
      'DATABASE_URL is required by `worker`: the embedded store belongs to the `serve` process, which works the jobs itself',
    );
  }
  const store = await openStore(storeLocation(config));
  await migrateToLatest(store.db);
  const logger = createLogger(config);
  const jobs = createJobs({ store, logger });
  await jobs.start();
  const closeHandlers = await registerJobHandlers(jobs, {
    db: store.db,
    logger,
    config,
    secretKey: resolveSecretKey(config),
  });
  logger.info('worker started');
  onShutdown(async () => {
    await jobs.stop();
    await closeHandlers();
    await store.close();
  });
}

function createLogger(config: Config) {
  return pino({ level: config.logLevel, redact: { paths: LOG_REDACT, censor: '[redacted]' } });
}

function onShutdown(stop: () => Promise<void>): void {
  const handler = () => {
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`Invalid configuration: ${error.message}`);
  else if (
    error instanceof DataDirBusyError ||
    error instanceof UsageError ||
    error instanceof RedisUnavailableError
  )
    console.error(error.message);
  else if (error instanceof AppError)
    console.error(
      typeof error.detail === 'string' ? error.detail : error.detail.map((d) => d.msg).join('\n'),
    );
  else console.error(error);
  process.exit(1);
});

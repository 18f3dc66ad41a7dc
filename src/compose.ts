// The composition root: the one place that builds the service's graph (store, logger, audit, the
// target pools, the job queue, the mailer, every module) for `serve`, `worker`, the CLI, `openapi`,
// the tests and the benches alike. Each shared piece exists once per process: one audit service,
// one secret box, one pool set per target. Everything built here is closed by `close()`, in the
// reverse order of its making.
import pino from 'pino';
import type { Config } from './config.ts';
import type { TargetDialect } from './dialects/index.ts';
import type { DialectName } from './engine/schema/model.ts';
import {
  createMemoryRateLimitStore,
  createRedisRateLimitStore,
  type RateLimitStore,
} from './http/rate-limit-store.ts';
import {
  createJobs,
  createRunQueue,
  type Jobs,
  type JobsTuning,
  jobSender,
  type Working,
  workJobs,
} from './jobs/index.ts';
import { createMailer } from './mail/mailer.ts';
import { createApprovalGate } from './modules/approvals/approval-gate.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { type CredentialEpoch, createCredentialEpoch } from './modules/auth/credential-epoch.ts';
import { createTwoFactorService } from './modules/auth/two-factor.service.ts';
import { createTargetAccess } from './modules/connections/target-access.ts';
import type { Resolver } from './modules/connections/target-guard.ts';
import { createEventsService, EVENT_DISPATCH_QUEUE } from './modules/events/events.service.ts';
import { MODULES } from './modules/index.ts';
import type { JobSender, Logger, Module, ModuleFactory, Shared } from './modules/module.ts';
import { createOrgsService } from './modules/orgs/orgs.service.ts';
import type { RunHandlers } from './modules/runs/run-handler.ts';
import { createRunKinds } from './modules/runs/run-kinds.ts';
import type { DrainReport } from './modules/runs/runs.executor.ts';
import { createRunsService } from './modules/runs/runs.service.ts';
import { createSnapshotsService } from './modules/snapshots/snapshots.service.ts';
import { logMixin } from './observability/log-context.ts';
import { createPasswordHasher, type PasswordHasher } from './security/passwords.ts';
import { createSecretBox } from './security/secret-box.ts';
import { resolveSecretKey } from './security/secret-key.ts';
import { openStore, type Store, storeLocation } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';

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

export type AppLogger = pino.Logger;

export interface ComposeOptions {
  config: Config;
  /**
   * What this process does with the job queue: `work` sends and works jobs (`serve` by default,
   * `worker`); `send` only sends (an API process with JOBS_IN_SERVER=false); `none` has no queue
   * (the CLI, `openapi`).
   */
  jobs: 'work' | 'send' | 'none';
  /** An open store (tests); otherwise the configured one is opened, migrated and closed with the rest. */
  store?: Store;
  /** Skip the store migrations (`openapi`: no store is read). */
  migrate?: boolean;
  logger?: AppLogger;
  now?: () => Date;
  passwords?: PasswordHasher;
  secretKey?: Buffer;
  rateLimitStore?: RateLimitStore;
  /** The target dialects; the real ones by default (tests wrap them to watch connects). */
  dialects?: Record<DialectName, TargetDialect>;
  /** How connection hosts resolve for the address guard; the system resolver by default. */
  resolveHost?: Resolver;
  jobsTuning?: JobsTuning;
  /** Overrides every job worker's idle polling interval. */
  pollingIntervalSeconds?: number;
  /** Works only these run handlers instead of the modules' own. */
  runHandlers?: RunHandlers;
  /** Registers the modules' schedules when working jobs (default true). */
  schedules?: boolean;
  /** Wraps the job sender (tests record what is sent). */
  wrapSender?: (sender: JobSender) => JobSender;
  modules?: readonly ModuleFactory[];
}

export interface Composition extends Shared {
  logger: AppLogger;
  store: Store;
  modules: readonly Module[];
  rateLimitStore: RateLimitStore;
  /** What cached credentials are checked against on every request (src/modules/auth/credentials.ts). */
  credentialEpoch: CredentialEpoch;
  /** pg-boss, when this process has a queue. */
  queue: Jobs | undefined;
  /**
   * The first step of a graceful stop: no new run is taken; runs in flight get `graceMs` to finish,
   * then are handed back at a checkpoint (see runs.executor.ts). Nothing to drain without a worker.
   */
  drain(graceMs: number, handBackMs: number): Promise<DrainReport>;
  close(): Promise<void>;
}

/** A sender for a process without a queue: nothing it runs sends jobs, so a send is a bug. */
const noQueue: JobSender = {
  async send(queue) {
    throw new Error(`This process has no job queue (sending to ${queue})`);
  },
};

export async function compose(options: ComposeOptions): Promise<Composition> {
  const { config } = options;
  const closers: (() => Promise<void> | void)[] = [];
  const now = options.now ?? (() => new Date());
  const logger = options.logger ?? createLogger(config.logLevel);
  try {
    const store = options.store ?? (await openStore(storeLocation(config)));
    if (!options.store) closers.push(() => store.close());
    if (options.migrate !== false) await migrateToLatest(store.db);
    const db = store.db;

    const credentialEpoch = await createCredentialEpoch(store);
    closers.push(() => credentialEpoch.close());

    const rateLimitStore = options.rateLimitStore ?? (await rateLimitStoreOf(config, logger, now));
    closers.push(() => rateLimitStore.close());

    // Registered before the queue so that it runs after the queue has stopped: the worker's lock
    // (src/jobs/worker-liveness.ts) must outlive the runs that finish during a graceful stop.
    let working: Working | undefined;
    closers.push(() => working?.stop());
    let queue: Jobs | undefined;
    // Stopping the queue lets the running jobs finish: it comes first on close, while the target
    // pools, the mailer and the modules they use are still open (once, whoever asks first).
    let queueStopped: Promise<void> | undefined;
    const stopQueue = () => {
      queueStopped ??= queue?.stop() ?? Promise.resolve();
      return queueStopped;
    };
    if (options.jobs !== 'none') {
      queue = createJobs({ store, logger, tuning: options.jobsTuning });
      await queue.start();
      closers.push(() => stopQueue());
    }
    const sender = queue ? jobSender(queue) : noQueue;
    const jobs = options.wrapSender ? options.wrapSender(sender) : sender;

    const secretKey = options.secretKey ?? resolveSecretKey(config);
    const passwords = options.passwords ?? (await createPasswordHasher(config.argon2));
    const box = createSecretBox(secretKey);
    const events = createEventsService({
      now,
      nudge: queue ? () => jobs.send(EVENT_DISPATCH_QUEUE, {}) : undefined,
      onNudgeError: (error) =>
        logger.warn({ err: error }, 'event fan-out not nudged: the sweep will catch up'),
    });
    closers.push(() => events.close());
    const audit = createAuditService({ db, now, onRecord: events.fromAudit });
    const targets = createTargetAccess({
      db,
      audit,
      box,
      now,
      targets: config.targets,
      dialects: options.dialects,
      resolveHost: options.resolveHost,
    });
    closers.push(targets.close);
    const { connections } = targets;
    const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, db, logger, now });
    closers.push(() => mailer.close());
    const twoFactor = createTwoFactorService({ db, audit, box, now });
    const runKinds = createRunKinds();
    const gate = createApprovalGate({ audit, now });
    const shared: Shared = {
      config,
      db,
      plansCached: store.plansCached,
      now,
      logger,
      secretKey,
      box,
      passwords,
      audit,
      events,
      connections,
      snapshots: createSnapshotsService({ db, audit, connections, now }),
      runs: createRunsService({ db, audit, queue: createRunQueue(jobs), gate, kinds: runKinds, now }),
      gate,
      orgs: createOrgsService({ db, audit, passwords, now, billingMode: config.billing.mode }),
      auth: createAuthService({
        db,
        audit,
        passwords,
        now,
        sessionTtlHours: config.sessionTtlHours,
        twoFactor,
      }),
      twoFactor,
      mailer,
      jobs,
      resolveHost: options.resolveHost,
      runKinds,
      rateLimits: rateLimitStore,
    };

    const modules = (options.modules ?? MODULES).map((factory) => factory(shared));
    for (const module of modules) {
      for (const registration of module.runKinds ?? []) runKinds.add(registration);
      for (const source of module.eventSources ?? []) events.addSource(source);
      if (module.ownedTables) connections.addOwnedTables(module.ownedTables);
      if (module.close) closers.push(() => module.close?.());
    }

    if (queue && options.jobs === 'work') {
      working = await workJobs(queue, {
        db,
        store,
        logger,
        now,
        modules,
        runKinds,
        runHandlers: options.runHandlers,
        events,
        schedules: options.schedules ?? true,
        scheduleCronOverride: config.scheduleCronOverride,
        pollingIntervalSeconds: options.pollingIntervalSeconds,
      });
    }

    return {
      ...shared,
      logger,
      store,
      modules,
      rateLimitStore,
      credentialEpoch,
      queue,
      drain: async (graceMs, handBackMs) =>
        working ? working.drain(graceMs, handBackMs) : { finished: 0, handedBack: [], abandoned: [] },
      close: async () => {
        await stopQueue();
        await closeAll(closers);
      },
    };
  } catch (error) {
    await closeAll(closers);
    throw error;
  }
}

/**
 * The process's logger: JSON lines (for a collector) unless standard output is a terminal, where
 * pino-pretty makes them readable. Every line written while a run works names it (log-context.ts).
 */
export function createLogger(level: Config['logLevel']): AppLogger {
  return pino({
    level,
    redact: { paths: LOG_REDACT, censor: '[redacted]' },
    mixin: logMixin,
    ...(process.stdout.isTTY && {
      transport: {
        target: 'pino-pretty',
        options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
      },
    }),
  });
}

/** Closes in the reverse order of making: the queue stops before the pools and the store close. */
async function closeAll(closers: (() => Promise<void> | void)[]): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
}

/** The shared counters (Redis) when REDIS_URL is set; trouble is logged at most once a minute. */
async function rateLimitStoreOf(config: Config, logger: Logger, now: () => Date): Promise<RateLimitStore> {
  if (!config.redisUrl) return createMemoryRateLimitStore({ now });
  let lastLogged = 0;
  return createRedisRateLimitStore({
    url: config.redisUrl,
    onError: (error) => {
      if (Date.now() - lastLogged < 60_000) return;
      lastLogged = Date.now();
      logger.warn({ err: error }, 'Redis (rate-limit counters) unreachable: requests are not counted');
    },
  });
}

// What a module contributes to the service, declared in one place (its `<feature>.module.ts`) and
// listed once in src/modules/index.ts: its routes, the kinds of run it works (with the right its
// requester needs and the connection it writes to), its schedules and queues, the domain events it
// emits and the operator commands it answers. The composition root (src/compose.ts) hands every
// module the same shared services; jobs/ and app.ts only read these declarations.
import type { Config } from '../config.ts';
import type { EventType } from '../core/vocabulary.ts';
import type { RateLimitStore } from '../http/rate-limit-store.ts';
import type { App } from '../http/types.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { PasswordHasher } from '../security/passwords.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { Db } from '../store/db.ts';
import type { ApprovalGate } from './approvals/approval-gate.ts';
import type { AuditService } from './audit/audit.service.ts';
import type { AuthService } from './auth/auth.service.ts';
import type { TwoFactorService } from './auth/two-factor.service.ts';
import type { ConnectionsService } from './connections/connections.service.ts';
import type { OwnedTables } from './connections/owned-tables.ts';
import type { Resolver } from './connections/target-guard.ts';
import type { EventSource, EventsService } from './events/events.service.ts';
import type { OrgsService } from './orgs/orgs.service.ts';
import type { RunKindRegistration, RunKinds } from './runs/run-kinds.ts';
import type { RunsService } from './runs/runs.service.ts';
import type { SnapshotsService } from './snapshots/snapshots.service.ts';

/** The logger every part of the service writes to (pino's, also Fastify's). */
export interface Logger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  /** Optional: fine-grained timings (a bridge run's phases); pino's loggers have it. */
  debug?(obj: object, msg: string): void;
}

/** Sends a job to one of the queues a module declares (pg-boss on the store). */
export interface JobSender {
  send(
    queue: string,
    data: object,
    options?: { id?: string; singletonKey?: string; startAfter?: number },
  ): Promise<void>;
}

/** The services every module may use, built once per process by the composition root. */
export interface Shared {
  config: Config;
  db: Db;
  /** The store keeps statements' plans (src/store/db.ts `plansCached`). */
  plansCached: boolean;
  now: () => Date;
  logger: Logger;
  secretKey: Buffer;
  box: SecretBox;
  passwords: PasswordHasher;
  audit: AuditService;
  /** The event outbox: `emit(trx, event)` in the transaction of the change (docs/contract.md §11.1). */
  events: EventsService;
  /** Connections and the one pool set of this process to the target databases. */
  connections: ConnectionsService;
  snapshots: SnapshotsService;
  runs: RunsService;
  gate: ApprovalGate;
  orgs: OrgsService;
  auth: AuthService;
  twoFactor: TwoFactorService;
  mailer: Mailer;
  jobs: JobSender;
  /** How host names resolve for the address guard (outbound calls); the system resolver by default. */
  resolveHost?: Resolver;
  /** Every module's run kinds, complete once the composition root has built all modules. */
  runKinds: RunKinds;
  /** The rate-limit counters of this process (Redis when several processes serve). */
  rateLimits: RateLimitStore;
}

export type { RunKindRegistration };

/** Retries of a job that failed as a whole (pg-boss: exponential back-off from `delaySeconds`). */
export interface JobRetry {
  limit: number;
  delaySeconds: number;
}

/** A pass run on a cron schedule, once per tick across every process (pg-boss `stately` queue). */
export interface Schedule {
  /** The queue's name: stored in pg-boss, shared by every process, so a rename is a data migration. */
  name: string;
  /** A cron expression in UTC. */
  cron: string;
  run(): Promise<object>;
  retry: JobRetry;
  /** A pass still running after this long is failed and retried. */
  expireInSeconds: number;
}

/** A queue of one-off jobs a module sends itself (through `Shared.jobs`) and works. */
export interface QueueWorker {
  name: string;
  work(data: Record<string, unknown>): Promise<object | undefined>;
  retry: JobRetry;
  expireInSeconds: number;
  /** How often an idle worker polls; a job that is waited for wants a short one. */
  pollingIntervalSeconds?: number;
  /**
   * Jobs taken per fetch and worked side by side (default 1). A queue of many short jobs that wait
   * on the network (webhook deliveries) needs more than one per poll: one per poll would send a
   * delivery a second. While fetches come back full the worker fetches again at once.
   */
  batchSize?: number;
}

/** An operator command (`npm run cli -- <name> …`), run in the serving process when one holds the store. */
export interface Command {
  name: string;
  /** Arguments and what it does, for the usage text. */
  usage: string;
  /**
   * An option that carries a secret: never typed on the command line (npm echoes it, `ps` shows it),
   * read by the CLI from the environment or asked for on a terminal, and passed on.
   */
  secret?: { option: string; prompt: string; config: 'adminPassword' };
  /** Runs with the command line's arguments; returns what to print. */
  run(args: string[]): Promise<string>;
}

/**
 * Routes outside /api/v1 with their own authentication, errors and limits (SCIM at /scim/v2): an
 * encapsulated plugin, so none of the /api/v1 hooks apply to it.
 */
export interface Mount {
  prefix: string;
  register(app: App): Promise<void>;
}

export interface Module {
  name: string;
  routes?(api: App): void;
  mounts?: Mount[];
  runKinds?: RunKindRegistration[];
  schedules?: Schedule[];
  queues?: QueueWorker[];
  /** The domain events it emits (docs/contract.md §11.1), fanned out to webhooks. */
  events?: readonly EventType[];
  /** Which of its audited changes are those events (src/modules/events/events.service.ts). */
  eventSources?: EventSource[];
  commands?: Command[];
  /** The tables it keeps inside target databases, dropped with their connection. */
  ownedTables?: OwnedTables;
  /** Releases what the module holds beyond the shared services. */
  close?(): Promise<void>;
}

export type ModuleFactory = (shared: Shared) => Module;

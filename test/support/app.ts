// The test harness: the real app on a real store (a throw-away PostgreSQL database, a copy of the
// run's migrated one, when the test server answers; in-memory PGlite started from the migrated
// template otherwise), a clock tests can move, captured log lines, and small
// clients that sign in with a session (cookies + CSRF) or an API key and call routes through inject.
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { type Composition, compose, LOG_REDACT } from '../../src/compose.ts';
import {
  type Config,
  loadConfig,
  TARGET_DEFAULTS,
  type TargetsConfig,
  type WebhooksConfig,
} from '../../src/config.ts';
import type { TargetDialect } from '../../src/dialects/dialect.ts';
import type { DialectName } from '../../src/engine/schema/model.ts';
import type { RateLimitStore } from '../../src/http/rate-limit-store.ts';
import type { App } from '../../src/http/types.ts';
import { type Jobs, type JobsTuning, RUN_QUEUE } from '../../src/jobs/index.ts';
import type { Resolver } from '../../src/modules/connections/target-guard.ts';
import { DRIFT_ALERT_JOB } from '../../src/modules/drift/drift.module.ts';
import type { ModuleFactory } from '../../src/modules/module.ts';
import type { RunHandlers } from '../../src/modules/runs/run-handler.ts';
import { insertUser } from '../../src/modules/users/users.repo.ts';
import { createPasswordHasher } from '../../src/security/passwords.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import type { OrgRole, Scope, User } from '../../src/store/tables.ts';
import { contractBroken, contractCheckOf } from './contract-check.ts';
import { createStorePgDatabase } from './databases.ts';
import { createUncountedRateLimitStore } from './rate-limits.ts';
import { openTemplateStore } from './store-template.ts';

export const TEST_PASSWORD = 'correct horse battery';
/** The service key of test apps (to open what they sealed). */
export const SECRET_KEY = Buffer.alloc(32, 7);

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Response {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: the JSON body of any route; tests assert on its values
  body: any;
}

/** Calls routes as one caller: with session cookies (and the CSRF header) or with a bearer key. */
export interface Client {
  user: User;
  request(method: Method, url: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  get(url: string): Promise<Response>;
  post(url: string, body?: unknown): Promise<Response>;
  put(url: string, body?: unknown): Promise<Response>;
  patch(url: string, body?: unknown): Promise<Response>;
  delete(url: string): Promise<Response>;
}

/** A client whose verbs all go through `request`. */
export function clientOf(user: Client['user'], request: Client['request']): Client {
  return {
    user,
    request,
    get: (url) => request('GET', url),
    post: (url, body) => request('POST', url, body),
    put: (url, body) => request('PUT', url, body),
    patch: (url, body) => request('PATCH', url, body),
    delete: (url) => request('DELETE', url),
  };
}

export interface TestApp {
  app: App;
  store: Store;
  /** The graph the app was built from (shared services, modules). */
  composition: Composition;
  /** Run ids sent to the queue (when runs are not worked for real). */
  enqueued: string[];
  /** Drift report ids whose alert the app queued (whether or not `jobs` works them). */
  alertsEnqueued: string[];
  /** pg-boss on the test store, when `work`, `runHandlers` or `jobs` asked for it. */
  jobs: Jobs | undefined;
  /** Log lines written by the app, as text. */
  logs: string[];
  /** Moves the app's clock forward. */
  advance(ms: number): void;
  now(): Date;
  /** A new organization with its owner, signed in. */
  createOrg(name?: string): Promise<{ orgId: string; owner: Client }>;
  /** A user of the organization, signed in. */
  createUser(orgId: string, role: OrgRole): Promise<Client>;
  login(email: string, password?: string): Promise<Client>;
  /** An API key of the client's user, as a client. */
  keyClient(
    of: Client,
    scopes: Scope[],
    expiresAt?: string,
  ): Promise<Client & { secret: string; keyId: string }>;
  anonymous: Client;
  close(): Promise<void>;
}

let counter = 0;
export const uniqueEmail = (tag = 'user') => `${tag}-${Date.now().toString(36)}-${++counter}@example.com`;

export interface TestAppOptions {
  /** SIGNUP=open (the default) or closed. */
  signupOpen?: boolean;
  /** OAuth providers (none by default), pointed at local fakes. */
  oauth?: Config['oauth'];
  /** The web application's address (PUBLIC_URL); http://localhost:8000 by default. */
  publicUrl?: string;
  /** CORS_ORIGINS; none by default. */
  corsOrigins?: string[];
  /** TRUSTED_PROXIES; none by default. */
  trustedProxies?: string[];
  /**
   * Rate-limit counters, made with the app's clock. By default a store that counts nothing, so that
   * suites signing in many times a minute are not throttled; the X-RateLimit-* headers are still set.
   */
  rateLimitStore?: (now: () => Date) => RateLimitStore;
  /**
   * Work runs for real: pg-boss on the test store, with these handlers. Without it (or `work`),
   * runs are only recorded as sent (`enqueued`), for suites that do not execute them.
   */
  runHandlers?: RunHandlers;
  /** Work runs for real with the modules' own handlers, as a `worker` process does. */
  work?: boolean;
  /** The modules of the app; every module of the service by default. */
  modules?: readonly ModuleFactory[];
  /**
   * pg-boss on the test store (exposed as `jobs`, started, with these settings) even without
   * `runHandlers`; drift alerts then go to its `send_drift_alert` queue besides `alertsEnqueued`.
   * The suite registers the workers it wants.
   */
  jobs?: { tuning?: JobsTuning };
  /** Connections to target databases (TARGET_*, BLOCK_PRIVATE_TARGETS); the defaults otherwise. */
  targets?: Partial<TargetsConfig>;
  /** The target dialects; the real ones by default (wrap them to watch or refuse connects). */
  dialects?: Record<DialectName, TargetDialect>;
  /** How connection hosts resolve for the address guard; the system resolver by default. */
  resolveHost?: Resolver;
  /** Outbound webhooks (WEBHOOK_*); the defaults otherwise. */
  webhooks?: Partial<WebhooksConfig>;
  /** Payment-provider events (STRIPE_WEBHOOK_SECRET, BILLING_GRACE_DAYS); the defaults otherwise. */
  billing?: Partial<Config['billing']>;
  /** The level of the lines kept in `logs`; `info` by default (a bench reads `debug` timings). */
  logLevel?: 'info' | 'debug';
}

/** The configuration of test apps: the defaults, with what the options change. */
export function testConfig(options: TestAppOptions): Config {
  const defaults = loadConfig({});
  return {
    ...defaults,
    logLevel: 'info',
    cookieSecure: false,
    sessionTtlHours: 24,
    signupOpen: options.signupOpen ?? true,
    publicUrl: options.publicUrl ?? 'http://localhost:8000',
    corsOrigins: options.corsOrigins ?? [],
    trustedProxies: options.trustedProxies ?? [],
    oauth: options.oauth ?? {},
    targets: { ...TARGET_DEFAULTS, ...options.targets },
    webhooks: { ...defaults.webhooks, ...options.webhooks },
    billing: { ...defaults.billing, ...options.billing },
  };
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const pgDatabase = await createStorePgDatabase();
  const store = pgDatabase
    ? await openStore({ kind: 'postgres', url: pgDatabase.url })
    : await openTemplateStore('migrated');
  await migrateToLatest(store.db);
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = pino(
    { level: options.logLevel ?? 'info', redact: { paths: LOG_REDACT, censor: '[redacted]' } },
    sink,
  );
  const passwords = await createPasswordHasher({ memoryKib: 64, iterations: 1 });
  const enqueued: string[] = [];
  const alertsEnqueued: string[] = [];
  const work = options.work === true || options.runHandlers !== undefined;
  const composition = await compose({
    config: testConfig(options),
    // Runs are worked for real only when asked; otherwise they are recorded as sent (`enqueued`).
    jobs: work ? 'work' : options.jobs ? 'send' : 'none',
    store,
    migrate: false,
    logger,
    now,
    passwords,
    secretKey: SECRET_KEY,
    rateLimitStore: (options.rateLimitStore ?? createUncountedRateLimitStore)(now),
    dialects: options.dialects,
    resolveHost: options.resolveHost,
    jobsTuning: options.jobs?.tuning,
    pollingIntervalSeconds: 0.5,
    runHandlers: options.runHandlers,
    modules: options.modules,
    // A schedule firing in the middle of a suite that moves the clock would act on its data.
    schedules: false,
    wrapSender: (sender) => ({
      async send(queue, data, sendOptions) {
        const id = (data as { run_id?: string; report_id?: string }).run_id;
        if (queue === RUN_QUEUE && id) enqueued.push(id);
        if (queue === DRIFT_ALERT_JOB) alertsEnqueued.push(String((data as { report_id: string }).report_id));
        if (work || (options.jobs && queue !== RUN_QUEUE)) await sender.send(queue, data, sendOptions);
      },
    }),
  });
  const jobs = composition.queue;
  const app = await buildApp(composition);
  await app.ready();
  const { orgs } = composition;
  const contractCheck = contractCheckOf((await app.inject({ method: 'GET', url: '/openapi.json' })).body);

  function client(user: User, auth: { cookies?: Record<string, string>; bearer?: string }): Client {
    const request = async (
      method: Method,
      url: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const all: Record<string, string> = { ...headers };
      if (auth.bearer) all.authorization = `Bearer ${auth.bearer}`;
      if (auth.cookies?.csrf_token && method !== 'GET') all['x-csrf-token'] = auth.cookies.csrf_token;
      const response = await app.inject({
        method,
        url,
        headers: all,
        cookies: auth.cookies ?? {},
        ...(body !== undefined && { payload: body as object }),
      });
      const text = response.body;
      const problem = contractCheck({
        method,
        url,
        status: response.statusCode,
        contentType: response.headers['content-type'] as string | undefined,
        text,
      });
      if (problem) contractBroken(problem);
      return {
        status: response.statusCode,
        headers: response.headers,
        body: text ? JSON.parse(text) : undefined,
      };
    };
    return clientOf(user, request);
  }

  async function login(email: string, password = TEST_PASSWORD): Promise<Client> {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email, password },
    });
    if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
    const cookies = Object.fromEntries(response.cookies.map((c) => [c.name, c.value]));
    return client(JSON.parse(response.body).user, { cookies });
  }

  return {
    app,
    store,
    composition,
    logs,
    now,
    advance: (ms) => {
      offset += ms;
    },
    async createOrg(name = `Org ${++counter}`) {
      const { org, owner } = await orgs.createWithOwner({
        orgName: name,
        email: uniqueEmail('owner'),
        password: TEST_PASSWORD,
      });
      return { orgId: org.id, owner: await login(owner.email) };
    },
    async createUser(orgId, role) {
      const at = now();
      const user = await insertUser(store.db, {
        id: crypto.randomUUID(),
        org_id: orgId,
        email: uniqueEmail(role),
        name: `A ${role}`,
        org_role: role,
        password_hash: await passwords.hash(TEST_PASSWORD),
        created_at: at,
        updated_at: at,
      });
      return login(user.email);
    },
    login,
    async keyClient(of, scopes, expiresAt) {
      const created = await of.post('/api/v1/api-keys', {
        name: `key ${++counter}`,
        scopes,
        ...(expiresAt && { expires_at: expiresAt }),
      });
      if (created.status !== 201)
        throw new Error(`key creation failed: ${created.status} ${JSON.stringify(created.body)}`);
      return {
        ...client(of.user, { bearer: created.body.secret }),
        secret: created.body.secret,
        keyId: created.body.id,
      };
    },
    anonymous: client({} as User, {}),
    enqueued,
    alertsEnqueued,
    jobs,
    async close() {
      await app.close();
      await composition.close();
      await store.close();
      await pgDatabase?.drop();
    },
  };
}

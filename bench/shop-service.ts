// The service as the shop bench measures it: real processes as `npm start` and `npm run worker` start
// them (their commands read from package.json, memory settings included), one API that takes no
// jobs and one worker, on a PostgreSQL store, driven over HTTP with an API key like any client.
// A run is timed from its POST to the moment a polling client sees it `succeeded` (the queue's
// pick-up included), and the RSS of both processes' trees is sampled every 50 ms meanwhile.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { TestPgDatabase } from '../test/support/databases.ts';
import {
  freePort,
  runToEnd,
  type ServiceProcess,
  scrubbedEnv,
  startProcess,
} from '../test/support/server-process.ts';
import { cpuSnapshot } from './cpu-time.ts';
import { idleRss, type RssPeaks, treeCpuMs, watchRss } from './shop-memory.ts';

const API = '/api/v1';
const EMAIL = 'owner@shop-bench.example';
const PASSWORD = 'shop bench password 123';
/**
 * The command `npm start` (`start`) or `npm run worker` (`worker`) runs, read from package.json, so the
 * bench runs the service as it is started, its memory settings included (scripts/node-service.sh).
 */
function serviceCommand(script: 'start' | 'worker'): { command: string; args: string[] } {
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> })
    .scripts;
  const [command, ...args] = (scripts[script] ?? '').replace(/^exec\s+/, '').split(/\s+/);
  if (!command) throw new Error(`package.json has no ${script} script`);
  return { command, args };
}

/** PATH with this process's node first: the one the settings script then runs. */
const nodeFirst = `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`;
/** How often the client asks about its run: a real client's pace, and a request the API serves. */
const POLL_MS = 100;
/** A run still not over after this long is reported as failed, so the bench always ends and reports. */
const RUN_DEADLINE_MS = 30 * 60_000;

export interface TimedRun {
  /** POST → the run seen `succeeded` by the polling client. */
  wallMs: number;
  /** The run's own started_at → finished_at. */
  runMs: number;
  /** POST → started_at: the queue's pick-up. */
  pickupMs: number;
  /** RSS of every service process together at the POST, in bytes. */
  startRss: number;
  /** Peak RSS of every service process together during the run, in bytes. */
  peakRss: number;
  /** CPU time the service's processes spent, POST → seen succeeded. */
  serviceCpuMs: number;
  /** CPU time of every PostgreSQL and MariaDB server process meanwhile (other sessions included). */
  databaseCpuMs: number;
  /** Peak RSS of the worker's process tree alone (the process that does the work), in bytes. */
  workerPeakRss: number;
  /** The worker's memory as its own /metrics tells it once the run succeeded. */
  workerAfter: WorkerMemory;
  result: Record<string, unknown>;
}

/** What the worker process says of its memory (prom-client's process and Node.js gauges), in bytes. */
export interface WorkerMemory {
  rss: number;
  /** V8's heap: committed, and used by live and not yet collected objects. */
  heapTotal: number;
  heapUsed: number;
  /** Memory outside V8's heap that its objects hold (Buffers, the row batches). */
  external: number;
  /** V8's heap by space (new, old, large_object, code, …): committed bytes. */
  spaces: Record<string, number>;
}

export interface ShopService {
  /** JSON over HTTP with the owner's write key; throws on any answer but `expect`. */
  call(method: string, path: string, body?: unknown, expect?: number): Promise<Record<string, unknown>>;
  /** A connection of the bench's project to a database on this machine. */
  connect(url: string, name: string): Promise<string>;
  projectId: string;
  /** The service's processes (API, then worker): their trees are what is measured. */
  pids(): number[];
  /** RSS of the trees at rest before any run, in bytes. */
  idle: number;
  /** RSS of the worker's tree alone at rest, in bytes. */
  workerIdle: number;
  /** Starts a run by POST (waiting out a per-minute limit first) and waits until it succeeded. */
  timedRun(path: string, body?: unknown): Promise<TimedRun>;
  /** Error-level lines the processes logged. */
  errors(): string[];
  stop(): Promise<void>;
}

async function cli(settings: Record<string, string>, args: string[], extra: Record<string, string> = {}) {
  const done = await runToEnd(process.execPath, ['src/main.ts', ...args], {
    env: { ...scrubbedEnv(), ...settings, LOG_LEVEL: 'warn', ...extra },
    timeoutMs: 120_000,
  });
  if (done.code !== 0) throw new Error(`${args[0]} failed (${done.code}): ${done.stderr}`);
}

async function request(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const response = await fetch(`${base}${API}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  return { response, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** The owner signs in and makes a write key: every later call carries it, as a script's would. */
async function writeKey(base: string): Promise<string> {
  const login = await fetch(`${base}${API}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`sign-in: ${login.status} ${await login.text()}`);
  const cookies = Object.fromEntries(
    login.headers.getSetCookie().map((c) => c.split(';')[0]?.split(/=(.*)/s).slice(0, 2) ?? []),
  );
  const session = {
    cookie: `session=${cookies.session}; csrf_token=${cookies.csrf_token}`,
    'x-csrf-token': String(cookies.csrf_token),
  };
  const key = await request(base, 'POST', '/api-keys', session, { name: 'shop bench', scopes: ['write'] });
  if (key.response.status !== 201) throw new Error(`API key: ${JSON.stringify(key.body)}`);
  return `Bearer ${String(key.body.secret)}`;
}

const peaksOf = (peaks: RssPeaks) => ({
  startRss: peaks.start,
  peakRss: peaks.total,
  workerPeakRss: peaks.byRoot[1] ?? 0,
});

/** Starts the API and the worker on `store` (migrated here), an organization with its limits lifted. */
export async function startShopService(store: TestPgDatabase): Promise<ShopService> {
  const settings = {
    DATABASE_URL: store.url,
    SECRET_KEY: randomBytes(32).toString('hex'),
    // A run of millions of rows holds statements longer than the default minute.
    TARGET_STATEMENT_TIMEOUT_MS: String(3_600_000),
  };
  const workerMetricsPort = await freePort();
  await cli(settings, ['migrate']);
  await cli(settings, ['create-admin', '--email', EMAIL, '--org', 'Shop'], { ADMIN_PASSWORD: PASSWORD });
  await cli(settings, [
    'set-plan',
    '--org',
    'Shop',
    '--plan',
    'enterprise',
    '--per-minute',
    '1000000',
    '--per-hour',
    '10000000',
  ]);
  const processes: ServiceProcess[] = await Promise.all([
    startProcess({
      ...serviceCommand('start'),
      env: { ...settings, JOBS_IN_SERVER: 'false', PATH: nodeFirst },
    }),
    startProcess({
      ...serviceCommand('worker'),
      env: {
        ...settings,
        LOG_LEVEL: 'info',
        METRICS_PORT: String(workerMetricsPort),
        PATH: nodeFirst,
      },
    }),
  ]);
  const [api, worker] = processes as [ServiceProcess, ServiceProcess];
  try {
    await Promise.all([api.ready(), worker.waitForOutput('worker started', 90_000)]);
  } catch (error) {
    await Promise.all(processes.map((p) => p.kill()));
    throw error;
  }
  const authorization = await writeKey(api.base);
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    expect = method === 'POST' ? 201 : 200,
  ) => {
    const answer = await request(api.base, method, path, { authorization }, body);
    if (answer.response.status !== expect)
      throw new Error(
        `${method} ${path}: ${answer.response.status} ${JSON.stringify(answer.body).slice(0, 500)}`,
      );
    return answer.body;
  };
  const projectId = String((await call('POST', '/projects', { name: 'Shop bench' })).id);
  const pids = () => processes.map((p) => p.child.pid!);
  const storeDb = new pg.Pool({ connectionString: store.url, max: 1 });
  // The API builds the web application at its first start: the idle level is read once it settled.
  await sleep(5_000);

  async function post(path: string, body: unknown): Promise<{ id: string; posted: number }> {
    for (;;) {
      const posted = performance.now();
      const answer = await request(api.base, 'POST', path, { authorization }, body);
      if (answer.response.status === 202) return { id: String(answer.body.id), posted };
      // Runs that copy are limited per user and minute (docs/contract.md §4); the wait is not the run's.
      if (answer.response.status === 429) {
        const retry = Number(answer.response.headers.get('retry-after') ?? '5');
        await sleep(Math.max(1, retry) * 1000);
        continue;
      }
      throw new Error(`POST ${path}: ${answer.response.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    }
  }

  async function workerMemory(): Promise<WorkerMemory> {
    const text = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    return {
      rss: gauge('process_resident_memory_bytes'),
      heapTotal: gauge('nodejs_heap_size_total_bytes'),
      heapUsed: gauge('nodejs_heap_size_used_bytes'),
      external: gauge('nodejs_external_memory_bytes'),
      spaces: Object.fromEntries(
        [...text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\S+)$/gm)].map((m) => [
          m[1]!,
          Number(m[2]),
        ]),
      ),
    };
  }

  const idle = await idleRss(pids());
  return {
    call,
    projectId,
    pids,
    idle: idle.total,
    workerIdle: idle.byRoot[1] ?? 0,
    async connect(url, name) {
      const u = new URL(url);
      const body = {
        project_id: projectId,
        name,
        dialect: u.protocol.startsWith('mysql') ? 'mysql' : 'postgresql',
        host: u.hostname,
        port: Number(u.port || (u.protocol.startsWith('mysql') ? 3306 : 5432)),
        database: u.pathname.slice(1),
        username: decodeURIComponent(u.username),
        password: decodeURIComponent(u.password),
        ssl_mode: 'disable',
        environment: 'development',
      };
      return String((await call('POST', '/connections', body)).id);
    },
    async timedRun(path, body) {
      const watch = watchRss(pids());
      const cpuBefore = { service: treeCpuMs(pids()), databases: cpuSnapshot()?.servers ?? Number.NaN };
      try {
        const { id, posted } = await post(path, body);
        for (;;) {
          const run = await call('GET', `/runs/${id}`);
          if (run.status === 'succeeded') {
            const wallMs = performance.now() - posted;
            const serviceCpuMs = treeCpuMs(pids()) - cpuBefore.service;
            const databaseCpuMs = (cpuSnapshot()?.servers ?? Number.NaN) - cpuBefore.databases;
            // The API answers whole seconds; the store keeps milliseconds.
            const times = await storeDb.query<{ created_at: Date; started_at: Date; finished_at: Date }>(
              'select created_at, started_at, finished_at from runs where id = $1',
              [id],
            );
            const { created_at, started_at, finished_at } = times.rows[0]!;
            return {
              wallMs,
              runMs: finished_at.getTime() - started_at.getTime(),
              pickupMs: started_at.getTime() - created_at.getTime(),
              serviceCpuMs,
              databaseCpuMs,
              ...peaksOf(watch.stop()),
              workerAfter: await workerMemory(),
              result: (run.result ?? {}) as Record<string, unknown>,
            };
          }
          if (run.status === 'failed' || run.status === 'cancelled')
            throw new Error(`run ${id} ${String(run.status)}: ${JSON.stringify(run.error)}`);
          if (performance.now() - posted > RUN_DEADLINE_MS)
            throw new Error(
              `run ${id} still ${String(run.status)} after ${RUN_DEADLINE_MS / 60_000} minutes`,
            );
          await sleep(POLL_MS);
        }
      } finally {
        watch.stop();
      }
    },
    errors: () =>
      processes.flatMap((p) =>
        p
          .output()
          .split('\n')
          .filter((line) => /"level":\s*(5\d|60)/.test(line))
          .map((line) => line.slice(0, 300)),
      ),
    async stop() {
      await storeDb.end();
      await Promise.all(processes.map((p) => p.terminate(60_000).catch(() => p.kill())));
    },
  };
}

// The load bench: the production shape of docs/architecture.md on loopback (2 API processes
// that take no jobs and 2 workers, real `node src/main.ts` children, on one PostgreSQL store and one
// Redis for the rate-limit counters) under autocannon at BENCH_LOAD_CONNECTIONS (default 200)
// connections for BENCH_LOAD_SECONDS (default 60) over a mix of routes run side by side: reads with
// an API key and with a session, writes with a key (projects created) and with a session and its
// CSRF token (one project patched by all of them at once, so its row and the organization's audit
// chain are contended), and `POST /auth/login`, limited to 5 a minute per client address, so most
// of its answers are 429. Each route's connections are dealt between the two APIs (no balancer in
// front: autocannon takes both URLs), and each route is its own autocannon run, so statuses and
// latencies are counted per route.
//
// The organization is on Enterprise with limits far above what the run can send, so no read or
// write may be refused: every answer of those routes must be its 2xx. The login route may answer
// 200 at most 5 times per minute window it touches (the limit is counted in Redis across both APIs),
// and 429 otherwise. Any other status, any 5xx, any socket error or timeout fails the bench, and the
// report says which route and how many. p50, p99 and the maximum latency per route are reported.
//
// Needs PostgreSQL (TEST_PG_URL; a throw-away database is created and dropped) and Redis
// (TEST_REDIS_URL); without them it is skipped with one loud line and results.md is left as it was.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Options, Result } from 'autocannon';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../test/support/databases.ts';
import { redisAvailable, testRedisUrl } from '../test/support/rate-limits.ts';
import { runToEnd, type ServiceProcess, scrubbedEnv, startProcess } from '../test/support/server-process.ts';
import { positiveNumber } from './env.ts';
import { generateLoad } from './load-child.ts';
import { sampleWaits, type WaitSummary } from './pg-waits.ts';
import { updateResults } from './results.ts';

const PASSWORD = 'load bench password 123';
const EMAIL = 'owner@load.example.com';
/** The per-endpoint limit of `POST /auth/login` (docs/contract.md §4), per client address. */
const LOGIN_PER_MINUTE = 5;
/** Enterprise limits of the bench's organization: far above anything 60 s on one machine can send. */
const PER_MINUTE = 5_000_000;
const PER_HOUR = 50_000_000;
/**
 * Projects the edits are spread over, two connections each: clients editing one row all at once
 * wait for each other's row lock while holding a connection of their API's store pool (10), so
 * the reads of every route queue behind them (measured: 12 of the 20 store connections of the
 * APIs waiting on the row, reads' p99 2.7–3.3 s and the edits' 10 s).
 */
const EDITED_PROJECTS = 10;
/**
 * Seconds before autocannon gives up on a request (a timeout fails the bench): a patient client's,
 * as a proxy in front would wait (nginx waits 60 s for an answer). The latencies are reported as
 * they are, so a slow route shows in its p99 whatever this allows.
 */
const TIMEOUT_SECONDS = 30;

const log = (message: string) => console.error(`[load] ${message}`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Route {
  label: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** One path, or several that the route's connections are dealt among (as they are among the APIs). */
  paths: string[];
  /**
   * Share of the connections. The sign-in route's is small: its 429s are answered from Redis alone,
   * so each of its connections sends many times what one of another route does, and would otherwise
   * take most of the servers' time.
   */
  weight: number;
  headers: Record<string, string>;
  body?: string;
  /** The statuses this route may answer; anything else is a failure. */
  expected: number[];
}

interface Deployment {
  apis: ServiceProcess[];
  workers: ServiceProcess[];
}

interface RouteOutcome {
  route: Route;
  connections: number;
  result: Result;
  failures: string[];
}

/** The connections of `total` shared by weight, every route at least one, summing to `total`. */
function share(routes: Route[], total: number): number[] {
  const weights = routes.reduce((sum, r) => sum + r.weight, 0);
  const counts = routes.map((r) => Math.max(1, Math.floor((total * r.weight) / weights)));
  let left = total - counts.reduce((sum, n) => sum + n, 0);
  for (let i = 0; left > 0; i = (i + 1) % counts.length, left--) counts[i] = (counts[i] ?? 0) + 1;
  return counts;
}

async function api(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : {};
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return { status: response.status, headers: response.headers, body: parsed };
}

async function cli(settings: Record<string, string>, args: string[], extra: Record<string, string> = {}) {
  const done = await runToEnd(process.execPath, ['src/main.ts', ...args], {
    env: { ...scrubbedEnv(), ...settings, LOG_LEVEL: 'warn', ...extra },
    timeoutMs: 120_000,
  });
  if (done.code !== 0) throw new Error(`${args[0]} failed (${done.code}): ${done.stderr}`);
}

async function startDeployment(settings: Record<string, string>): Promise<Deployment> {
  const apiEnv = { ...settings, JOBS_IN_SERVER: 'false', TRUSTED_PROXIES: '127.0.0.1' };
  const [apis, workers] = await Promise.all([
    Promise.all([startProcess({ env: apiEnv }), startProcess({ env: apiEnv })]),
    Promise.all([
      startProcess({ args: ['src/main.ts', 'worker'], env: { ...settings, LOG_LEVEL: 'info' } }),
      startProcess({ args: ['src/main.ts', 'worker'], env: { ...settings, LOG_LEVEL: 'info' } }),
    ]),
  ]);
  await Promise.all([
    ...apis.map((p) => p.ready()),
    ...workers.map((p) => p.waitForOutput('worker started', 45_000)),
  ]);
  return { apis, workers };
}

/** The organization's owner signs in, makes a project and two keys: what the routes use. */
async function prepare(base: string, clientIp: string) {
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`sign-in: ${login.status} ${await login.text()}`);
  const cookies = Object.fromEntries(
    login.headers.getSetCookie().map((c) => c.split(';')[0]?.split(/=(.*)/s).slice(0, 2) ?? []),
  );
  const sessionHeaders = {
    cookie: `session=${cookies.session}; csrf_token=${cookies.csrf_token}`,
    'x-csrf-token': String(cookies.csrf_token),
  };
  const project = await api(base, 'POST', '/api/v1/projects', sessionHeaders, { name: 'Load' });
  const edited: string[] = [];
  for (let i = 0; i < EDITED_PROJECTS; i++) {
    const made = await api(base, 'POST', '/api/v1/projects', sessionHeaders, { name: `Edited ${i}` });
    edited.push(String(made.body.id));
  }
  const key = async (scopes: string[]) =>
    `Bearer ${(await api(base, 'POST', '/api/v1/api-keys', sessionHeaders, { name: scopes.join('+'), scopes })).body.secret}`;
  return {
    projectId: String(project.body.id),
    edited,
    session: sessionHeaders,
    read: await key(['read']),
    write: await key(['write']),
  };
}

function routesOf(fixture: Awaited<ReturnType<typeof prepare>>, loginIp: string): Route[] {
  const { projectId, edited, session, read, write } = fixture;
  const json = { 'content-type': 'application/json' };
  return [
    {
      label: 'list projects (key)',
      method: 'GET',
      paths: ['/api/v1/projects'],
      weight: 7,
      headers: { authorization: read },
      expected: [200],
    },
    {
      label: 'one project (key)',
      method: 'GET',
      paths: [`/api/v1/projects/${projectId}`],
      weight: 7,
      headers: { authorization: read },
      expected: [200],
    },
    {
      label: 'runs of a project (key)',
      method: 'GET',
      paths: [`/api/v1/runs?project_id=${projectId}`],
      weight: 7,
      headers: { authorization: read },
      expected: [200],
    },
    {
      label: 'who am I (session)',
      method: 'GET',
      paths: ['/api/v1/auth/me'],
      weight: 7,
      headers: { cookie: session.cookie },
      expected: [200],
    },
    {
      label: 'create a project (key)',
      method: 'POST',
      paths: ['/api/v1/projects'],
      weight: 6,
      headers: { authorization: write, ...json },
      body: JSON.stringify({ name: 'load [<id>]' }),
      expected: [201],
    },
    {
      label: `edit a project (session + CSRF; ${EDITED_PROJECTS} projects)`,
      method: 'PATCH',
      paths: edited.map((id) => `/api/v1/projects/${id}`),
      weight: 4,
      headers: { ...session, ...json },
      body: JSON.stringify({ description: 'edited [<id>]' }),
      expected: [200],
    },
    {
      label: 'sign in (5/min per address)',
      method: 'POST',
      paths: ['/api/v1/auth/login'],
      weight: 2,
      headers: { 'x-forwarded-for': loginIp, ...json },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      expected: [200, 429],
    },
  ];
}

/** Minute windows (the rate limits' fixed windows) that [from, to] touches. */
const windowsTouched = (from: number, to: number) => Math.floor(to / 60_000) - Math.floor(from / 60_000) + 1;

function judge(route: Route, result: Result, windows: number): string[] {
  const failures: string[] = [];
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) {
    if (!route.expected.includes(Number(code))) failures.push(`${fmt(count)}× ${code}`);
  }
  if (result.errors > 0) failures.push(`${fmt(result.errors)} socket errors (timeouts included)`);
  if (result.timeouts > 0) failures.push(`${fmt(result.timeouts)} timeouts`);
  if (result.resets > 0) failures.push(`${fmt(result.resets)} resets`);
  if (result.requests.total === 0) failures.push('no request completed');
  if (route.expected.includes(429)) {
    const passed = result.statusCodeStats['200']?.count ?? 0;
    const allowed = LOGIN_PER_MINUTE * windows;
    if (passed > allowed)
      failures.push(
        `${passed} sign-ins passed, over ${LOGIN_PER_MINUTE} in each of ${windows} minute windows`,
      );
    if (passed === 0) failures.push('no sign-in passed: the limit refused everything');
    if ((result.statusCodeStats['429']?.count ?? 0) === 0) failures.push('no 429: the limit never refused');
  }
  return failures;
}

function statuses(result: Result): string {
  return Object.entries(result.statusCodeStats)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, { count }]) => `${code}: ${fmt(count)}`)
    .join(', ');
}

function report(args: {
  outcomes: RouteOutcome[];
  seconds: number;
  connections: number;
  windows: number;
  loadBefore: number[];
  serviceErrors: string[];
  alive: boolean;
  waits: WaitSummary;
}): string {
  const { outcomes, seconds, connections, windows, loadBefore, serviceErrors, alive, waits } = args;
  const cpus = os.cpus();
  const load = (avg: number[]) => avg.map((n) => n.toFixed(2)).join(' / ');
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const total = outcomes.reduce((sum, o) => sum + o.result.requests.total, 0);
  const failed = outcomes.filter((o) => o.failures.length > 0);
  const verdict =
    failed.length === 0 && serviceErrors.length === 0 && alive
      ? 'ok: no 5xx, no socket error, no timeout; 429 only on the sign-in route, within its limit'
      : 'FAIL (see the routes marked FAIL and the notes below)';
  const lines = [
    `# Load: ${connections} connections for ${seconds} s on 2 API processes + 2 workers (PostgreSQL + Redis)`,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()}); ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${fmt(os.totalmem() / 2 ** 30)} GiB RAM; the servers, PostgreSQL, Redis and the load generator share them`,
    "- Deployment: `node src/main.ts serve` ×2 (`JOBS_IN_SERVER=false`, `LOG_LEVEL=warn`) and `node src/main.ts worker` ×2 on one PostgreSQL store and one Redis, all on 127.0.0.1; each route's connections dealt between the two APIs",
    `- Load: one autocannon run per route, all at once, in one child process; pipelining 1, timeout ${TIMEOUT_SECONDS} s; ${fmt(total)} requests in all (${fmt(total / seconds)}/s)`,
    `- Organization on Enterprise with ${fmt(PER_MINUTE)}/min and ${fmt(PER_HOUR)}/h, so only the sign-in route (${LOGIN_PER_MINUTE}/min per client address, docs/contract.md §4) may answer 429; the run touched ${windows} minute windows`,
    `- Load average (1 / 5 / 15 min) before: ${load(loadBefore)}, after: ${load(os.loadavg())}; anything else running on the machine takes cores from all of the above`,
    `- Edits are spread over ${EDITED_PROJECTS} projects (2 connections each). All ${EDITED_PROJECTS * 2} on one project (first run, 2026-11-25, load average 10–15): no error either, but reads' p99 2.7–3.3 s and the edits' 10.2 s (max 12 s), since every waiting edit holds one of its API's 10 store connections (pg_stat_activity sampled by hand: 12 connections waiting on the row lock, 4 on the audit chain's advisory lock)`,
    `- Result: ${verdict}`,
    '',
    row(['Route', 'Request', 'Conns', 'Requests', 'req/s', 'Statuses', 'p50', 'p99', 'max', 'Result']),
    row(['---', '---', '---:', '---:', '---:', '---', '---:', '---:', '---:', '---']),
    ...outcomes.map(({ route, connections: conns, result, failures }) =>
      row([
        route.label,
        `\`${route.method} ${(route.paths[0] ?? '').replace(/[0-9a-f-]{36}/g, '{id}')}\``,
        String(conns),
        fmt(result.requests.total),
        fmt(result.requests.total / result.duration),
        statuses(result),
        `${result.latency.p50} ms`,
        `${result.latency.p99} ms`,
        `${result.latency.max} ms`,
        failures.length === 0 ? 'ok' : `FAIL: ${failures.join('; ')}`,
      ]),
    ),
    '',
    `- The store connections of the service's pools (every process's; application name \`dbops\`), sampled each second (${waits.samples} samples), by what they wait on, mean (max): ` +
      `${waits.waits.map((w) => `${w.what} ${w.mean.toFixed(1)} (${w.max})`).join(', ')}. ` +
      "`Lock:advisory` is the organization's audit chain (every state change appends to it, one at a time, src/modules/audit/audit.repo.ts), " +
      "`Lock:transactionid` a row another transaction is changing; a request waiting there holds its pool's connection (10 per process), so the reads queue for the pool behind the waiting writes.",
    `- The service processes ${alive ? 'were all still running and ready after the run' : 'were NOT all running after the run'}; ` +
      (serviceErrors.length === 0
        ? 'they logged no error.'
        : `they logged ${serviceErrors.length} error lines, the first: ${serviceErrors.slice(0, 3).join(' / ')}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Error-level lines (pino level ≥ 50) the processes printed. */
function errorLines(processes: ServiceProcess[]): string[] {
  return processes.flatMap((p) =>
    p
      .output()
      .split('\n')
      .filter((line) => /"level":\s*(5\d|60)/.test(line))
      .map((line) => line.slice(0, 300)),
  );
}

export async function runLoadBench(): Promise<boolean> {
  const seconds = Math.round(positiveNumber('BENCH_LOAD_SECONDS', 60));
  const connections = Math.round(positiveNumber('BENCH_LOAD_CONNECTIONS', 200));
  if (!(await pgAvailable()) || !(await redisAvailable())) {
    console.error(
      '\n*** SKIPPED the load bench: it needs PostgreSQL (TEST_PG_URL) and Redis (TEST_REDIS_URL) ***\n',
    );
    return true;
  }
  let store: TestPgDatabase | undefined;
  let deployment: Deployment | undefined;
  try {
    store = await createTestPgDatabase();
    if (!store) throw new Error('PostgreSQL went away');
    const settings = {
      DATABASE_URL: store.url,
      SECRET_KEY: randomBytes(32).toString('hex'),
      REDIS_URL: testRedisUrl,
      // Production's password hashing (the test harness's cheap one is not what a user runs).
      ARGON2_MEMORY_KIB: '19456',
      ARGON2_ITERATIONS: '2',
    };
    log('store migrated, organization and plan …');
    await cli(settings, ['migrate']);
    await cli(settings, ['create-admin', '--email', EMAIL, '--org', 'Load'], { ADMIN_PASSWORD: PASSWORD });
    await cli(settings, [
      'set-plan',
      '--org',
      'Load',
      '--plan',
      'enterprise',
      '--per-minute',
      String(PER_MINUTE),
      '--per-hour',
      String(PER_HOUR),
    ]);
    log('2 APIs and 2 workers starting …');
    deployment = await startDeployment(settings);
    const [a, b] = deployment.apis.map((p) => p.base);
    if (!a || !b) throw new Error('the APIs did not start');
    // Client addresses of this run's own (the APIs trust the loopback as their proxy): the set-up's
    // sign-in is not counted against the measured route's limit, nor is anything else on this Redis.
    const address = () => `10.${randomBytes(3).join('.')}`;
    const fixture = await prepare(a, address());
    const routes = routesOf(fixture, address());
    const counts = share(routes, connections);
    const options: Options[] = routes.map((route, i) => ({
      url: route.paths.flatMap((path) => [a, b].map((base) => `${base}${path}`)),
      method: route.method,
      headers: route.headers,
      ...(route.body !== undefined && { body: route.body, idReplacement: true }),
      connections: counts[i] ?? 1,
      pipelining: 1,
      duration: seconds,
      timeout: TIMEOUT_SECONDS,
    }));

    const loadBefore = os.loadavg();
    log(`${connections} connections for ${seconds} s over ${routes.length} routes …`);
    const sampler = await sampleWaits(store.url, 'dbops');
    const started = Date.now();
    const results = await generateLoad(options);
    const ended = Date.now();
    const waits = await sampler.stop();
    const windows = windowsTouched(started, ended);
    const outcomes: RouteOutcome[] = routes.map((route, i) => {
      const result = results[i];
      if (!result) throw new Error(`no result for ${route.label}`);
      return { route, connections: counts[i] ?? 1, result, failures: judge(route, result, windows) };
    });
    const processes = [...deployment.apis, ...deployment.workers];
    const alive =
      processes.every((p) => p.running()) &&
      (await Promise.all(deployment.apis.map((p) => fetch(`${p.base}/readyz`).then((r) => r.status)))).every(
        (status) => status === 200,
      );
    const markdown = report({
      outcomes,
      seconds,
      connections,
      windows,
      loadBefore,
      serviceErrors: errorLines(processes),
      alive,
      waits,
    });
    process.stdout.write(`\n${markdown}`);
    await updateResults('load', markdown);
    return alive && errorLines(processes).length === 0 && outcomes.every((o) => o.failures.length === 0);
  } finally {
    if (deployment) {
      await Promise.all(
        [...deployment.apis, ...deployment.workers].map((p) => p.terminate(30_000).catch(() => p.kill())),
      );
    }
    await store?.drop();
  }
}

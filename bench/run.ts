// `npm run bench` runs every bench of BENCH_RUNS (at the end of this file), in that order, or the
// one BENCH_ONLY names. Each bench file's header says what it measures and beside which physical
// limit: bench/schema.ts (introspection of 1,000 tables), bench/migration.ts (compare + plan +
// lint), bench/schema-dependencies.ts (the compare on a dependency-dense schema, beside pg_dump), bench/patch.ts, bench/bridge.ts, bench/anonymize-transformers.ts and bench/anonymize.ts,
// bench/seed.ts, bench/shop.ts (every data operation on a realistic shop schema beside its reference,
// with the service's RSS growth; alone: `BENCH_ONLY=shop npm run bench`), bench/events.ts (webhook fan-out), bench/audit.ts (audited writes of one
// organization), bench/load.ts (200 connections on 2 APIs and 2
// workers, statuses and p99 per route), and this file's API bench. Each updates its own
// section of bench/results.md; the exit code is 1 when any misses its target.
//
// The API bench: requests per second and p99 latency of `GET /api/v1/projects` (API key, 20
// projects) next to a bare Fastify route of the same process, on the embedded PGlite store and on
// PostgreSQL, beside (b) a bare route that runs the same store queries. Targets: see TARGET_OF_QUERIES below.
// A third route, a static copy of the API's answer, and the server's CPU time per request show
// where the difference goes. Prints a Markdown report and writes it to bench/results.md. Exits 1
// when a response was not 2xx, a request failed, or the target is missed.
//
// Environment: BENCH_SECONDS (measured seconds per target, default 10), BENCH_WARMUP_SECONDS
// (default 2), BENCH_CONNECTIONS (default 50), BENCH_STORES (default `pglite,postgres`), TEST_PG_URL
// (the PostgreSQL server, as for the tests; a throw-away database is created on it and dropped),
// BENCH_PROFILE=1 (a CPU profile of the server during the API route's run, added to the report; the
// profiler slows the server, so the numbers of a profiled run are not the benchmark's). The schema,
// migration and patch benches' variables are described in bench/schema.ts, bench/migration.ts and
// bench/patch.ts.
//
// The load generator is autocannon's programmatic API in a child process (bench/load-generator.ts), not in
// this process. In this process it would share the server's event loop: every response parsed and
// every request written by autocannon would be time taken from the server, and the server's work
// would delay autocannon's timers and inflate its latencies. A worker thread would avoid the shared
// loop, but a child process is the closer model of a real client: its own heap and GC, its own
// libuv pool, nothing shared but the loopback sockets, and the OS schedules it on the other core.
// (On a 2-core machine the PostgreSQL server's processes still compete with both.)
// `npm run bench` starts this process with the service's V8 settings (package.json's start and worker
// scripts): the benches that run the service in this process measure it as it runs.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Result } from 'autocannon';
import { openStore, type Store, type StoreLocation } from '../src/store/db.ts';
import { createTestPgDatabase, redactUrl, testPgUrl } from '../test/support/databases.ts';
import { runAnonymizeBench } from './anonymize.ts';
import { runAnonymizeTransformerBench } from './anonymize-transformers.ts';
import { runAuditBench } from './audit.ts';
import { runBridgeBench } from './bridge.ts';
import { positiveNumber } from './env.ts';
import { runEventsBench } from './events.ts';
import {
  API_PATH,
  HELLO_PATH,
  PROJECTS,
  QUERIES_PATH,
  QUERY_SAMPLE,
  type Server,
  STATIC_PATH,
  startServer,
} from './fixture.ts';
import { runLoadBench } from './load.ts';
import { generateLoad } from './load-child.ts';
import { runMigrationBench } from './migration.ts';
import { runPatchBench } from './patch.ts';
import { formatProfile, type ProfileSummary, profileWhile } from './profile.ts';
import { updateResults } from './results.ts';
import { runSchemaBench } from './schema.ts';
import { runSchemaDependenciesBench } from './schema-dependencies.ts';
import { runSeedBench } from './seed.ts';
import { runShopBench } from './shop.ts';
import { probeTail, type TailSummary } from './tail-probe.ts';

/** The target: the API route against (b), the same store queries on a bare route, on both stores. */
const TARGET_OF_QUERIES = 0.7;
/** …and on PostgreSQL against (a), the bare route, with its p99 at 50 connections. */
const TARGET_OF_BARE_PG = 0.15;
const TARGET_P99_PG_MS = 20;
/** …and on PostgreSQL the API's p99 at most this many times the mean Little's law sets. */
const TARGET_TAIL_RATIO = 2;
/** …and on the embedded store at least 4× the req/s measured before (795, bench/results.md of 2026-11-21). */
const EMBEDDED_BEFORE_RPS = 795;
const PIPELINING = 1;

const BENCHES = [
  'api',
  'schema',
  'migration',
  'schema-dependencies',
  'patch',
  'bridge',
  'anonymize-transformers',
  'anonymize',
  'seed',
  'shop',
  'events',
  'audit',
  'load',
] as const;
const only = process.env.BENCH_ONLY?.trim() || undefined;
if (only !== undefined && !(BENCHES as readonly string[]).includes(only)) {
  console.error(`BENCH_ONLY: unknown bench "${only}" (${BENCHES.join(', ')}; unset for all)`);
  process.exit(2);
}

const seconds = positiveNumber('BENCH_SECONDS', 10);
const warmupSeconds = positiveNumber('BENCH_WARMUP_SECONDS', 2);
const connections = Math.round(positiveNumber('BENCH_CONNECTIONS', 50));
const profiling = process.env.BENCH_PROFILE === '1';
const STORES = ['pglite', 'postgres'] as const;
const stores = (process.env.BENCH_STORES ?? STORES.join(',')).split(',').map((s) => s.trim());
const unknownStore = stores.find((s) => !(STORES as readonly string[]).includes(s));
if (unknownStore !== undefined) {
  console.error(`BENCH_STORES: unknown store "${unknownStore}" (${STORES.join(', ')})`);
  process.exit(2);
}

interface Measure {
  rps: number;
  p99: number;
  requests: number;
  /** CPU time of this process (the server; with PGlite, the store too) per completed request, in µs. */
  cpuUs: number;
  /** Non-2xx answers, errors, timeouts and resets, warm-up included. */
  failures: string[];
  /** What could stall the tail in the server's process meanwhile (warm-up included). */
  tail: TailSummary;
}

interface Row {
  store: string;
  hello: Measure;
  static: Measure;
  /** (b): the API's store queries, through the same driver, on a bare route. */
  storeOnly: Measure;
  api: Measure;
  /** The API route of a second service on a fresh store, without usage metering. */
  unmetered?: Measure;
  ratio: number;
  ratioOfQueries: number;
  queries: Map<string, number>;
  /** Response bodies in bytes. */
  sizes: { hello: number; api: number };
  profile: ProfileSummary | undefined;
}

/** Runs autocannon (warm-up, then the measured run) in a child process against one URL. */
async function load(url: string, headers: Record<string, string>): Promise<Result> {
  const [result] = await generateLoad([
    {
      url,
      headers,
      connections,
      pipelining: PIPELINING,
      duration: seconds,
      warmup: { connections, duration: warmupSeconds },
    },
  ]);
  if (!result) throw new Error('the load generator answered no result');
  return result;
}

function failuresOf(result: Result): string[] {
  const failures: string[] = [];
  for (const [phase, r] of [
    ['warm-up', result.warmup],
    ['measured', result],
  ] as const) {
    if (!r) continue;
    const codes = Object.entries(r.statusCodeStats)
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, { count }]) => `${count}× ${code}`);
    if (r.non2xx > 0) failures.push(`${phase}: ${r.non2xx} non-2xx (${codes.join(', ') || 'unknown codes'})`);
    if (r.errors > 0) failures.push(`${phase}: ${r.errors} errors`);
    if (r.timeouts > 0) failures.push(`${phase}: ${r.timeouts} timeouts`);
    if (r.resets > 0) failures.push(`${phase}: ${r.resets} pipeline resets`);
  }
  if (result.requests.total === 0) failures.push('no request completed');
  return failures;
}

async function measure(
  url: string,
  headers: Record<string, string> = {},
  pool?: Store['poolConnections'],
): Promise<Measure> {
  const cpuBefore = process.cpuUsage();
  const stopProbe = probeTail(pool);
  const result = await load(url, headers);
  const tail = stopProbe();
  const cpu = process.cpuUsage(cpuBefore);
  const completed = result.requests.total + (result.warmup?.requests.total ?? 0);
  return {
    // Completed requests over the measured time (autocannon's per-second average drops the last,
    // partial second's samples less evenly).
    rps: result.requests.total / result.duration,
    p99: result.latency.p99,
    requests: result.requests.total,
    cpuUs: completed > 0 ? (cpu.user + cpu.system) / completed : 0,
    failures: failuresOf(result),
    tail,
  };
}

async function benchStore(name: string, store: Store): Promise<Row> {
  let server: Server | undefined;
  try {
    server = await startServer(store);
    console.error(`[${name}] ${server.baseUrl}: bare route …`);
    const pool = store.poolConnections?.bind(store);
    const hello = await measure(`${server.baseUrl}${HELLO_PATH}`, {}, pool);
    console.error(`[${name}] ${Math.round(hello.rps)} req/s; static copy of the API's answer …`);
    const copy = await measure(`${server.baseUrl}${STATIC_PATH}`);
    console.error(`[${name}] ${Math.round(copy.rps)} req/s; the same store queries on a bare route …`);
    const storeOnly = await measure(`${server.baseUrl}${QUERIES_PATH}`, {}, pool);
    console.error(`[${name}] ${Math.round(storeOnly.rps)} req/s; ${API_PATH} …`);
    const url = `${server.baseUrl}${API_PATH}`;
    const headers = { authorization: server.bearer };
    const [api, profile] = profiling
      ? await profileWhile(() => measure(url, headers, pool))
      : [await measure(url, headers, pool), undefined];
    console.error(`[${name}] ${Math.round(api.rps)} req/s`);
    return {
      store: name,
      hello,
      static: copy,
      storeOnly,
      api,
      ratio: api.rps / hello.rps,
      ratioOfQueries: api.rps / storeOnly.rps,
      queries: server.queriesPerRequest,
      sizes: server.sizes,
      profile,
    };
  } finally {
    await server?.app.close();
  }
}

/** The API route without the billing module's metering, on a fresh store opened by `open`. */
async function unmeteredApi(name: string, store: Store): Promise<Measure> {
  const server = await startServer(store, { metering: false });
  try {
    console.error(`[${name}] ${API_PATH} without usage metering …`);
    return await measure(`${server.baseUrl}${API_PATH}`, { authorization: server.bearer });
  } finally {
    await server.app.close();
  }
}

async function onPglite(): Promise<Row> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'dbops-bench-'));
  const location: StoreLocation = { kind: 'pglite', dataDir };
  const store = await openStore(location);
  const bareDir = await mkdtemp(path.join(os.tmpdir(), 'dbops-bench-'));
  try {
    const row = await benchStore('PGlite (DATA_DIR)', store);
    const bare = await openStore({ kind: 'pglite', dataDir: bareDir });
    try {
      row.unmetered = await unmeteredApi(row.store, bare);
    } finally {
      await bare.close();
    }
    return row;
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(bareDir, { recursive: true, force: true });
  }
}

async function onPostgres(): Promise<Row | string> {
  const database = await createTestPgDatabase();
  if (!database) return `PostgreSQL skipped: no server at ${redactUrl(testPgUrl)} (set TEST_PG_URL to one).`;
  try {
    const store = await openStore({ kind: 'postgres', url: database.url });
    let row: Row;
    try {
      row = await benchStore('PostgreSQL', store);
    } finally {
      await store.close();
    }
    const bareDatabase = await createTestPgDatabase();
    if (!bareDatabase) return row;
    try {
      const bare = await openStore({ kind: 'postgres', url: bareDatabase.url });
      try {
        row.unmetered = await unmeteredApi(row.store, bare);
      } finally {
        await bare.close();
      }
    } finally {
      await bareDatabase.drop();
    }
    return row;
  } finally {
    await database.drop();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * Whether (b), the store round trip alone, reaches the throughput a p99 target needs: the API makes
 * the same round trip per request (immediate revocation needs it), so below that floor no request
 * path at all meets the target on this machine.
 */
function roundTripVerdict(r: Row, floor: number): string {
  if (r.storeOnly.rps >= floor) return '';
  return ` (b) alone stays below the ${fmt(floor)} req/s floor: on this machine no request path that makes this round trip meets the target.`;
}
const pct = (n: number) => `${(n * 100).toFixed(1)} %`;

/** The targets this row misses; empty when it meets them all. */
function misses(row: Row): string[] {
  const missed: string[] = [];
  if (row.ratioOfQueries < TARGET_OF_QUERIES) missed.push(`below ${pct(TARGET_OF_QUERIES)} of (b)`);
  if (row.store === 'PostgreSQL') {
    if (row.ratio < TARGET_OF_BARE_PG) missed.push(`below ${pct(TARGET_OF_BARE_PG)} of (a)`);
    if (row.api.p99 >= TARGET_P99_PG_MS) missed.push(`p99 not under ${TARGET_P99_PG_MS} ms`);
    if (tailRatio(row.api) > TARGET_TAIL_RATIO)
      missed.push(`p99 ${tailRatio(row.api).toFixed(2)}× the Little's-law mean (over ${TARGET_TAIL_RATIO}×)`);
  } else {
    const floor = Math.min(4 * EMBEDDED_BEFORE_RPS, TARGET_OF_QUERIES * row.storeOnly.rps);
    if (row.api.rps < floor) missed.push(`below ${fmt(floor)} req/s`);
  }
  return missed;
}

function verdict(row: Row): string {
  const failures = [
    ...row.hello.failures.map((f) => `bare ${f}`),
    ...row.storeOnly.failures.map((f) => `(b) ${f}`),
    ...row.api.failures.map((f) => `API ${f}`),
  ];
  if (failures.length > 0) return `FAIL: ${failures.join('; ')}`;
  const missed = misses(row);
  return missed.length === 0 ? 'ok' : `FAIL: ${missed.join('; ')}`;
}

function report(rows: Row[], notes: string[], loadBefore: number[]): string {
  const cpus = os.cpus();
  const load = (avg: number[]) => avg.map((n) => n.toFixed(2)).join(' / ');
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    '# dbops benchmark: `GET /api/v1/projects` vs a bare Fastify route',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()})`,
    `- Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${fmt(os.totalmem() / 2 ** 30)} GiB RAM`,
    `- Load: autocannon in a child process over 127.0.0.1, ${connections} connections, pipelining ${PIPELINING}, ` +
      `${warmupSeconds} s warm-up then ${seconds} s measured per route`,
    `- API route: API key (read scope) of the organization owner, ${PROJECTS} projects, default page (50)`,
    `- (a) a bare route; (b) a bare route running the API's store queries (compiled once) through the same driver, rows sent with JSON.stringify`,
    `- Targets: API ≥ ${pct(TARGET_OF_QUERIES)} of (b) on both stores; on PostgreSQL also ≥ ${pct(TARGET_OF_BARE_PG)} of (a), ` +
      `p99 under ${TARGET_P99_PG_MS} ms and at most ${TARGET_TAIL_RATIO}× the mean latency Little's law sets (${connections} / req/s); on the embedded store at least min(4 × ${EMBEDDED_BEFORE_RPS} req/s, ${pct(TARGET_OF_QUERIES)} of (b))`,
    `- Load average (1 / 5 / 15 min) before: ${load(loadBefore)}, after: ${load(os.loadavg())}; ` +
      'anything else running on the machine takes cores from the server, the store and the load generator',
    '',
    row([
      'Store',
      '(a) req/s',
      '(a) p99',
      '(b) req/s',
      '(b) p99',
      'API req/s',
      'API p99',
      'API / (a)',
      'API / (b)',
      "(a) p99 / Little's mean",
      "API p99 / Little's mean",
      'Result',
    ]),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
    ...rows.map((r) =>
      row([
        r.store,
        fmt(r.hello.rps),
        `${r.hello.p99} ms`,
        fmt(r.storeOnly.rps),
        `${r.storeOnly.p99} ms`,
        fmt(r.api.rps),
        `${r.api.p99} ms`,
        pct(r.ratio),
        pct(r.ratioOfQueries),
        `${tailRatio(r.hello).toFixed(2)}×`,
        `${tailRatio(r.api).toFixed(2)}×`,
        verdict(r),
      ]),
    ),
    '',
    '## Where the time goes',
    '',
    "Same runs, with a third route: a static copy of the API's answer, sent as a prepared string (what " +
      'moving the bytes costs without making them). Server CPU: user + system time of the server process ' +
      'per completed request, warm-up included; with PGlite it includes the store, with PostgreSQL the ' +
      "database server's processes are not counted.",
    '',
    row(['Store', 'Route', 'Body', 'req/s', 'p99', 'Server CPU per request']),
    row(['---', '---', '---:', '---:', '---:', '---:']),
  ];
  for (const r of rows) {
    for (const [route, size, m] of [
      ['bare', r.sizes.hello, r.hello],
      ['static copy', r.sizes.api, r.static],
      ['(b) store queries', r.sizes.api, r.storeOnly],
      ['API', r.sizes.api, r.api],
    ] as const) {
      lines.push(row([r.store, route, `${fmt(size)} B`, fmt(m.rps), `${m.p99} ms`, `${fmt(m.cpuUs)} µs`]));
    }
  }
  lines.push('');
  for (const r of rows) {
    const perRequest = [...r.queries].map(([label, n]) => `${label}: ${Number(n.toFixed(2))}`).join(', ');
    const total = [...r.queries.values()].reduce((a, b) => a + b, 0);
    lines.push(
      `- ${r.store}: ${Number(total.toFixed(2))} store queries per API request (${perRequest}; over the key's first ${QUERY_SAMPLE} requests)`,
    );
  }
  lines.push(
    '- Before the per-process credential cache (2026-11-21, load average 0.9–2.1): PGlite 805 req/s (1.9 % of (a), p99 115 ms), ' +
      'PostgreSQL 2,021 req/s (5.1 % of (a), p99 42 ms); 2.01 store queries per request (the key ⋈ user ⋈ organization join, then the projects). ' +
      'Compare ratios taken in one run: absolute figures move with what else the machine runs.',
  );
  if (rows.some((r) => r.store === 'PostgreSQL'))
    lines.push(
      "- PostgreSQL: a warm key's revocation check (the credential epoch, src/modules/auth/credential-epoch.ts) is a column of the projects query itself (src/http/confirmed-read.ts), so (b) reads it too; every data statement is a named prepared statement (src/store/prepared-statements.ts), for (b) as for the API. The embedded store counts its epoch in memory.",
    );
  for (const r of rows) {
    if (r.store !== 'PostgreSQL') continue;
    // Little's law: with every connection always waiting, mean latency = connections / throughput,
    // and the p99 is at least the mean: a p99 target sets a throughput floor for any code at all.
    const floor = connections / (TARGET_P99_PG_MS / 1000);
    lines.push(
      `- PostgreSQL, p99: with ${connections} connections each always waiting, the mean latency is ${connections} / req/s (Little's law) and the p99 is above it, so a p99 under ${TARGET_P99_PG_MS} ms needs more than ${fmt(floor)} req/s, even if every request took the same time. In this run (b), a bare route running the same single statement, made ${fmt(r.storeOnly.rps)} req/s (mean ${((connections / r.storeOnly.rps) * 1000).toFixed(1)} ms, p99 ${r.storeOnly.p99} ms); the API ${fmt(r.api.rps)} req/s (mean ${((connections / r.api.rps) * 1000).toFixed(1)} ms, p99 ${r.api.p99} ms).${roundTripVerdict(r, floor)}`,
    );
  }
  for (const r of rows) {
    if (!r.unmetered) continue;
    // Metering is an in-memory count per request (target: under 5 % of the API's throughput).
    const cost = 1 - r.api.rps / r.unmetered.rps;
    lines.push(
      `- ${r.store}, usage metering: ${fmt(r.api.rps)} req/s with it, ${fmt(r.unmetered.rps)} req/s without (a second service on a fresh store, measured after): ${cost > 0 ? `costs ${pct(cost)}` : 'no measurable cost'} (target < 5 %; runs minutes apart on a shared machine differ by more than that)`,
    );
  }
  for (const note of notes) lines.push(`- ${note}`);
  if (profiling) lines.push('- BENCH_PROFILE=1: the API runs were profiled, which slows them.');
  lines.push(...tailSection(rows));
  for (const r of rows) {
    if (r.profile) lines.push('', formatProfile(`${r.store}, ${API_PATH}`, r.profile).trimEnd());
  }
  return `${lines.join('\n')}\n`;
}

/** Little's law: the mean latency of `connections` always-waiting clients at `rps` requests a second, in ms. */
const littleMeanMs = (m: Measure) => (connections / m.rps) * 1000;
/** The p99 over that mean: 1 when every request took the same time. */
const tailRatio = (m: Measure) => m.p99 / littleMeanMs(m);

/**
 * The tail: each route's p99 beside the mean Little's law sets, and what could stall requests in
 * the server meanwhile (./tail-probe.ts).
 */
function tailSection(rows: Row[]): string[] {
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const pauses = (p: TailSummary['gc']['minor'], seconds: number) =>
    p.count === 0
      ? '0'
      : `${p.count} (${fmt(p.count / seconds)}/s), ${ms(p.totalMs)} in all, max ${ms(p.maxMs)}`;
  const lines = [
    '',
    "## The tail: p99 against Little's law",
    '',
    `With ${connections} connections each always waiting, the mean latency is ${connections} / req/s (Little's law); the p99 over that mean says how far the slowest requests are from the others (target on PostgreSQL for the API: at most ${TARGET_TAIL_RATIO}×, beside the bare route's own ratio, which is the machine's and the load generator's share of the tail). ` +
      "Measured in the server's process during each route's run, warm-up included: the event loop's delay (perf_hooks, 1 ms resolution), the collector's pauses (PerformanceObserver 'gc'; scavenges of the young generation apart from the rest) and the store pool's waiting requests (sampled every 5 ms); the pool queue time is Little's law on that queue (mean waiting / req/s): the share of the mean latency spent waiting for one of the pool's connections.",
    '',
    row([
      'Store',
      'Route',
      'req/s',
      "Little's mean",
      'p99',
      'p99 / mean',
      'Loop busy',
      'Loop delay p99 / max',
      'GC scavenges',
      'GC mark-compact and other',
      'Pool waiting: mean / max / share of time',
      'Pool queue time',
    ]),
    row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---', '---', '---', '---:']),
  ];
  for (const r of rows)
    for (const [route, m] of [
      ['bare', r.hello],
      ['(b) store queries', r.storeOnly],
      ['API', r.api],
    ] as const) {
      const pool = m.tail.poolWaiting;
      lines.push(
        row([
          r.store,
          route,
          fmt(m.rps),
          ms(littleMeanMs(m)),
          `${m.p99} ms`,
          `${tailRatio(m).toFixed(2)}×`,
          pct(m.tail.loopBusy),
          `${ms(m.tail.loopDelay.p99)} / ${ms(m.tail.loopDelay.max)}`,
          pauses(m.tail.gc.minor, m.tail.seconds),
          pauses(m.tail.gc.major, m.tail.seconds),
          pool
            ? `${pool.mean.toFixed(1)} / ${pool.max} / ${pct(pool.shareWaiting)} (pool of ${pool.size})`
            : 'no pool',
        ]),
      );
    }
  for (const r of rows) {
    const { api, hello } = r;
    const pool = api.tail.poolWaiting;
    const stalls = api.tail.gc.minor.totalMs + api.tail.gc.major.totalMs;
    lines.push(
      '',
      `- ${r.store}, what stretches the API's tail: the p99 is ${tailRatio(api).toFixed(2)}× the mean, the bare route's own ${tailRatio(hello).toFixed(2)}× (what the machine and the load generator add to any route). ` +
        `The collector stopped the server for ${ms(stalls)} over ${api.tail.seconds.toFixed(0)} s (${pct(stalls / 1000 / api.tail.seconds)} of the time; longest ${ms(Math.max(api.tail.gc.minor.maxMs, api.tail.gc.major.maxMs))}), ` +
        `each stop delaying every request in flight; the event loop was ${pct(api.tail.loopBusy)} busy and its delay reached ${ms(api.tail.loopDelay.max)}` +
        (pool
          ? `; waiting for one of the pool's ${pool.size} connections took ${ms((pool.mean / api.rps) * 1000)} of the ${ms(littleMeanMs(api))} mean, the same for every request (the queue is first come, first served), so it lengthens the mean, not the tail.`
          : '.'),
    );
  }
  return lines;
}

async function apiBench(): Promise<void> {
  const loadBefore = os.loadavg();
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const store of stores) {
    const outcome = store === 'pglite' ? await onPglite() : await onPostgres();
    if (typeof outcome === 'string') {
      console.error(outcome);
      notes.push(outcome);
    } else rows.push(outcome);
  }
  const markdown = report(rows, notes, loadBefore);
  process.stdout.write(`\n${markdown}`);
  await updateResults('api', markdown);
  if (rows.some((row) => verdict(row) !== 'ok')) process.exitCode = 1;
}

/** Each bench: true when it met its targets. */
const BENCH_RUNS: Record<(typeof BENCHES)[number], () => Promise<boolean>> = {
  api: async () => {
    await apiBench();
    return process.exitCode !== 1;
  },
  schema: runSchemaBench,
  migration: runMigrationBench,
  'schema-dependencies': runSchemaDependenciesBench,
  patch: runPatchBench,
  bridge: runBridgeBench,
  'anonymize-transformers': async () => {
    const { report, ok } = await runAnonymizeTransformerBench();
    console.log(`\n${report}`);
    return ok;
  },
  anonymize: runAnonymizeBench,
  seed: runSeedBench,
  shop: runShopBench,
  events: runEventsBench,
  audit: runAuditBench,
  load: runLoadBench,
};

async function main(): Promise<void> {
  for (const name of BENCHES) {
    if (only !== undefined && only !== name) continue;
    // A broken bench fails the run, but does not keep the next ones from running.
    const ok = await BENCH_RUNS[name]().catch((error: unknown) => {
      console.error(error);
      return false;
    });
    if (!ok) process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

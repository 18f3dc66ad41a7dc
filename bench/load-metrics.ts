// What the metrics cost on the request path: `node bench/load-metrics.ts`. The same Fastify route
// served four ways in this process, measured in short windows taken in turn (so that what else the
// shared machine does weighs on every variant alike), with the load generator in a child process
// (./load-child.ts):
//   bare            no hook, Fastify's request logging off;
//   metrics         the service's onResponse hook (src/observability/http-hooks.ts), its log line
//                   below the level: the counter, the histogram and the label lookup only;
//   metrics + line  the same with its one log line written (to /dev/null), as at the default level;
//   fastify's lines no hook, Fastify's own two request lines written: what the service logged before.
// The figures: req/s (median of the windows) and server CPU per request (the least of the windows:
// what else runs on the machine only ever adds to it). On a shared machine the windows still differ
// by more than the hook costs, so the hook is also timed alone: its function called on a request and
// a reply as Fastify hands them over, a million times (the least of 7 runs). Beside the API route's
// own CPU per request (the API bench, bench/run.ts, in the same session) that is the share of the
// API's throughput the metrics take (target < 3 %). Writes its section of bench/results.md.
//
// Environment: BENCH_ROUNDS (windows per variant, default 6), BENCH_WINDOW_SECONDS (default 3),
// BENCH_CONNECTIONS (default 50), BENCH_API_CPU_US (the API route's server CPU per request from the
// API bench of this session; without it the share is not computed).
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import pino from 'pino';
import { registerHttpHooks } from '../src/observability/http-hooks.ts';
import { positiveNumber } from './env.ts';
import { generateLoad } from './load-child.ts';
import { publishReport } from './results.ts';

const rounds = Math.round(positiveNumber('BENCH_ROUNDS', 6));
const windowSeconds = positiveNumber('BENCH_WINDOW_SECONDS', 3);
const connections = Math.round(positiveNumber('BENCH_CONNECTIONS', 50));
const apiCpuUs = process.env.BENCH_API_CPU_US ? Number(process.env.BENCH_API_CPU_US) : undefined;

/** About the API's answer for a page of 20 projects, built per request as the API builds its own. */
function page() {
  return {
    items: Array.from({ length: 20 }, (_, i) => ({
      id: `0b5bd5c2-41a4-4a0e-9c38-8f3c2f6c1d${String(i).padStart(2, '0')}`,
      name: `Project ${i}`,
      description: 'A project of the bench, with a description of a realistic length',
      created_at: '2026-11-29T06:00:00.000000Z',
    })),
    page: 1,
    page_size: 20,
    total: 20,
  };
}

type Variant = { name: string; hook: boolean; level: 'warn' | 'info'; fastifyLines: boolean };
const VARIANTS: Variant[] = [
  { name: 'bare', hook: false, level: 'warn', fastifyLines: false },
  { name: 'metrics', hook: true, level: 'warn', fastifyLines: false },
  { name: 'metrics + line', hook: true, level: 'info', fastifyLines: false },
  { name: "fastify's lines", hook: false, level: 'info', fastifyLines: true },
];

async function serve(variant: Variant): Promise<{ app: FastifyInstance; url: string }> {
  const logger = pino({ level: variant.level }, pino.destination({ dest: '/dev/null', sync: true }));
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: !variant.fastifyLines }),
  });
  if (variant.hook) registerHttpHooks(app);
  app.get('/api/v1/projects/:id/items', async () => page());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/projects/p1/items`,
  };
}

interface Window {
  rps: number;
  cpuUs: number;
}

async function measure(url: string, seconds: number): Promise<Window> {
  const before = process.cpuUsage();
  const [result] = await generateLoad([{ url, connections, duration: seconds }]);
  const used = process.cpuUsage(before);
  if (!result || result.non2xx > 0 || result.errors > 0) throw new Error(`failed requests at ${url}`);
  return { rps: result.requests.average, cpuUs: (used.user + used.system) / result.requests.total };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** CPU µs of one call of the onResponse hook, the least of `runs` runs of `calls` calls. */
function timeHookAlone(calls = 1_000_000, runs = 7): number {
  let hook: ((request: unknown, reply: unknown, done: () => void) => void) | undefined;
  registerHttpHooks({
    addHook: (_name: string, fn: typeof hook) => (hook = fn),
  } as unknown as FastifyInstance);
  if (!hook) throw new Error('registerHttpHooks added no hook');
  const log = pino({ level: 'warn' }, pino.destination({ dest: '/dev/null', sync: true }));
  const request = { is404: false, method: 'GET', routeOptions: { url: '/api/v1/projects/:id/items' }, log };
  const reply = { statusCode: 200, elapsedTime: 1.234 };
  const done = () => {};
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) hook(request, reply, done);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / calls);
  }
  return best;
}

const hookAloneUs = timeHookAlone();
const servers = await Promise.all(VARIANTS.map(serve));
try {
  for (const { url } of servers) await measure(url, 1); // warm-up: JIT and connections
  const windows: Window[][] = VARIANTS.map(() => []);
  for (let round = 0; round < rounds; round++)
    for (const [i, { url }] of servers.entries()) {
      const window = await measure(url, windowSeconds);
      windows[i]!.push(window);
      console.error(
        `[round ${round + 1}] ${VARIANTS[i]!.name}: ${Math.round(window.rps)} req/s, ${window.cpuUs.toFixed(1)} µs`,
      );
    }
  const rows = VARIANTS.map((variant, i) => ({
    name: variant.name,
    rps: median(windows[i]!.map((w) => w.rps)),
    cpuUs: Math.min(...windows[i]!.map((w) => w.cpuUs)),
  }));
  const bare = rows[0]!;
  const metrics = rows[1]!;
  const hookUs = metrics.cpuUs - bare.cpuUs;
  const share = (us: number) => `${((us / (apiCpuUs ?? 1)) * 100).toFixed(1)} %`;
  const report = [
    '# Metrics on the request path',
    '',
    `\`node bench/load-metrics.ts\`, ${new Date().toISOString().slice(0, 16)}Z, ${connections} connections, ` +
      `${rounds} windows of ${windowSeconds} s per variant taken in turn, a route answering a 20-item page. ` +
      'req/s: the median window (on a shared machine it moves with the load more than with the variant); CPU: the least window.',
    '',
    '| Variant | req/s | vs bare | Server CPU per request |',
    '| --- | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${Math.round(row.rps).toLocaleString('en')} | ${(((row.rps - bare.rps) / bare.rps) * 100).toFixed(1)} % | ${row.cpuUs.toFixed(1)} µs |`,
    ),
    '',
    `- The hook alone (label lookup, counter, histogram, a log call below the level): ${hookAloneUs.toFixed(2)} µs per request; ` +
      `served, metrics minus bare: ${hookUs.toFixed(1)} µs (the windows' noise included).` +
      (apiCpuUs
        ? ` The API route costs ${apiCpuUs} µs of server CPU per request (API bench, same session): the metrics take ${share(hookAloneUs)} of its throughput timed alone, ${share(Math.max(0, hookUs))} as served (target < 3 %).`
        : ' Set BENCH_API_CPU_US to the API bench\'s "Server CPU per request" to compare.'),
    "- A request's log line is written at the default level; before, Fastify wrote two per request.",
  ];
  await publishReport('metrics', report);
} finally {
  await Promise.all(servers.map(({ app }) => app.close()));
}

// The audit chain bench: audited writes per second for one organization (docs/contract.md §11.2).
// Concurrent `POST /api/v1/projects` with one write-scoped API key, each creating a project and
// appending its entry to the organization's audit hash chain, on a PostgreSQL store, for
// BENCH_AUDIT_SECONDS (default 30) at BENCH_AUDIT_CONNECTIONS (default 50) connections after a
// BENCH_WARMUP_SECONDS warm-up (default 2). The organization is on Enterprise with limits no run
// reaches, so every answer must be its 201. Target: at least 1,000 audited writes a second.
// Beside it in the same run, on a database of its own, the reference: the same service with every
// entry chained inside its change's transaction (the lock held until the commit), as before.
// BENCH_PROFILE=1 adds a CPU profile of the service during our run.
//
// After the load the chain is checked through the API: `GET /audit/verify` must find it whole and
// count one entry per project created (and the set-up's own entries), and the newest entries are
// listed with their seq and hash. A run whose chain does not hold fails, whatever its speed.
//
// Needs PostgreSQL (TEST_PG_URL; a throw-away database is created and dropped); without it the
// bench is skipped with one loud line and results.md is left as it was.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { compose } from '../src/compose.ts';
import { loadConfig } from '../src/config.ts';
import type { App } from '../src/http/types.ts';
import { auditModule } from '../src/modules/audit/audit.module.ts';
import { registerAuditRoutes } from '../src/modules/audit/audit.routes.ts';
import { updateOrgPlan } from '../src/modules/billing/billing.repo.ts';
import { MODULES } from '../src/modules/index.ts';
import type { ModuleFactory } from '../src/modules/module.ts';
import { createAdmin } from '../src/modules/orgs/first-admin.ts';
import { createPasswordHasher } from '../src/security/passwords.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createTestPgDatabase, redactUrl, testPgUrl } from '../test/support/databases.ts';
import { positiveNumber } from './env.ts';
import { generateLoad } from './load-child.ts';
import { formatProfile, type ProfileSummary, profileWhile } from './profile.ts';
import { publishReport } from './results.ts';

const TARGET_PER_SECOND = 1000;
const EMAIL = 'owner@audit-bench.example';
const PASSWORD = 'audit bench password 123';

const log = (message: string) => console.error(`[audit] ${message}`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Service {
  app: App;
  baseUrl: string;
  /** A write-scoped key and a read-scoped one of the owner (who is an org admin: audit.read). */
  writer: string;
  reader: string;
  orgId: string;
}

async function startService(store: Store, modules: readonly ModuleFactory[]): Promise<Service> {
  await migrateToLatest(store.db);
  const composition = await compose({
    config: { ...loadConfig({}), logLevel: 'silent', cookieSecure: false, signupOpen: false },
    jobs: 'none',
    store,
    migrate: false,
    secretKey: randomBytes(32),
    passwords: await createPasswordHasher({ memoryKib: 64, iterations: 1 }),
    modules,
  });
  const app = await buildApp(composition);
  app.addHook('onClose', () => composition.close());
  await app.ready();
  const { org } = await createAdmin(composition.orgs, { email: EMAIL, password: PASSWORD, orgName: 'Audit' });
  // Limits far above what the run sends: nothing is refused, the limiter still runs on each request.
  await updateOrgPlan(
    store.db,
    org.id,
    { plan: 'enterprise', rate_limit_per_minute: 1_000_000_000, rate_limit_per_hour: 1_000_000_000 },
    new Date(),
  );
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: EMAIL, password: PASSWORD },
  });
  if (login.statusCode !== 200) throw new Error(`login: ${login.statusCode} ${login.body}`);
  const cookies = Object.fromEntries(login.cookies.map((c) => [c.name, c.value]));
  const key = async (scopes: string[]) => {
    const made = await app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      payload: { name: scopes.join('+'), scopes },
      cookies,
      headers: { 'x-csrf-token': String(cookies.csrf_token) },
    });
    if (made.statusCode !== 201) throw new Error(`api key: ${made.statusCode} ${made.body}`);
    return `Bearer ${String(JSON.parse(made.body).secret)}`;
  };
  const writer = await key(['write']);
  const reader = await key(['read']);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, baseUrl: `http://127.0.0.1:${port}`, writer, reader, orgId: org.id };
}

/**
 * CPU milliseconds (user + system, from Linux's /proc) of this database's server backends: the
 * store's share of the machine, told apart from what other databases on the server spend.
 */
async function backendCpuMs(store: Store): Promise<number> {
  const pids = await sql<{ pid: number }>`
    select pid from pg_stat_activity where datname = current_database()`.execute(store.db);
  let ms = 0;
  for (const { pid } of pids.rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 (utime, stime), in clock ticks of 10 ms.
      ms += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // Not on Linux, or the backend ended: its time is not counted.
    }
  }
  return ms;
}

async function getJson(app: App, url: string, bearer: string): Promise<Record<string, unknown>> {
  const response = await app.inject({ method: 'GET', url, headers: { authorization: bearer } });
  if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${response.body}`);
  return JSON.parse(response.body) as Record<string, unknown>;
}

/** What the chain looks like after the load; failures name what does not hold. */
async function checkChain(service: Service, store: Store, created: number) {
  const failures: string[] = [];
  // Requests still in flight when the load generator stopped finish first: until the count of
  // projects holds still for a moment.
  const projectCount = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from projects`.execute(store.db)).rows[0]?.n ?? 0);
  for (let last = -1, now = await projectCount(); now !== last; last = now, now = await projectCount())
    await new Promise((resolve) => setTimeout(resolve, 500));
  const verify = (await getJson(service.app, '/api/v1/audit/verify', service.reader)) as {
    ok: boolean;
    entries: number;
    first_broken_seq: number | null;
  };
  if (!verify.ok) failures.push(`the chain breaks at seq ${verify.first_broken_seq}`);
  // Counted in the store: every project made has its entry, and nothing else was lost.
  const counts = await sql<{ projects: string; creates: string; entries: string }>`
    select (select count(*) from projects) as projects,
      (select count(*) from audit_log where action = 'project.create') as creates,
      (select count(*) from audit_log where org_id = ${service.orgId}) as entries`.execute(store.db);
  const { projects, creates, entries } = counts.rows[0] ?? { projects: '0', creates: '0', entries: '0' };
  if (creates !== projects) failures.push(`${creates} project.create entries for ${projects} projects`);
  if (Number(projects) < created) failures.push(`${projects} projects for ${created} 201 answers`);
  if (Number(entries) !== verify.entries)
    failures.push(`verify covered ${verify.entries} of the organization's ${entries} entries`);
  const newest = (await getJson(service.app, '/api/v1/audit?page_size=100', service.reader)) as {
    items: { seq: number; hash: string }[];
  };
  if (newest.items.some((entry) => !(entry.seq >= 1) || !/^[0-9a-f]{64}$/.test(entry.hash)))
    failures.push('an entry listed without its seq and hash');
  return { verify, failures };
}

interface Measured {
  label: string;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  created: number;
  verified: number;
  serviceUs: number;
  storeUs: number;
  failures: string[];
  profile: ProfileSummary | undefined;
}

/**
 * The reference: the audit module without its request hooks, so every entry is chained inside its
 * change's transaction under the chain's lock until the commit (how every audited write was chained
 * before the waiting entries and their passes).
 */
const chainedInTransaction: ModuleFactory = ({ audit }) => ({
  name: 'audit',
  routes: (api) => registerAuditRoutes(api, { audit }),
});

/** One service on a fresh database under the load; its chain checked after. */
async function measureWith(
  label: string,
  modules: readonly ModuleFactory[],
  settings: { seconds: number; warmup: number; connections: number },
): Promise<Measured | undefined> {
  const { seconds, warmup, connections } = settings;
  const database = await createTestPgDatabase();
  if (!database) return undefined;
  const store = await openStore({ kind: 'postgres', url: database.url });
  let service: Service | undefined;
  try {
    const started = await startService(store, modules);
    service = started;
    log(`${label}: POST /api/v1/projects, ${connections} connections, ${seconds} s …`);
    const cpuBefore = process.cpuUsage();
    const storeCpuBefore = await backendCpuMs(store);
    const run = () =>
      generateLoad([
        {
          url: `${started.baseUrl}/api/v1/projects`,
          method: 'POST',
          headers: { authorization: started.writer, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'audited [<id>]' }),
          idReplacement: true,
          connections,
          duration: seconds,
          warmup: { connections, duration: warmup },
        },
      ]);
    const [[result], profile]: [Awaited<ReturnType<typeof run>>, ProfileSummary | undefined] =
      process.env.BENCH_PROFILE === '1' && modules === MODULES
        ? await profileWhile(run)
        : [await run(), undefined];
    if (!result) throw new Error('the load generator answered no result');
    const serviceCpu = process.cpuUsage(cpuBefore);
    const storeCpuMs = (await backendCpuMs(store)) - storeCpuBefore;
    const created =
      (result.statusCodeStats['201']?.count ?? 0) + (result.warmup?.statusCodeStats['201']?.count ?? 0);
    const failures: string[] = [];
    for (const [code, { count }] of Object.entries(result.statusCodeStats))
      if (code !== '201') failures.push(`${fmt(count)}× ${code}`);
    if (result.errors > 0) failures.push(`${fmt(result.errors)} socket errors`);
    if (result.timeouts > 0) failures.push(`${fmt(result.timeouts)} timeouts`);
    const answered = Math.max(1, result.requests.total + (result.warmup?.requests.total ?? 0));
    const chain = await checkChain(started, store, created);
    failures.push(...chain.failures);
    const measured: Measured = {
      label,
      perSecond: (result.statusCodeStats['201']?.count ?? 0) / result.duration,
      p50: result.latency.p50,
      p99: result.latency.p99,
      max: result.latency.max,
      created,
      verified: chain.verify.entries,
      serviceUs: (serviceCpu.user + serviceCpu.system) / answered,
      storeUs: (storeCpuMs * 1000) / answered,
      failures,
      profile,
    };
    log(`${label}: ${fmt(measured.perSecond)}/s`);
    return measured;
  } finally {
    await service?.app.close();
    await store.close();
    await database.drop();
  }
}

export async function runAuditBench(): Promise<boolean> {
  const settings = {
    seconds: positiveNumber('BENCH_AUDIT_SECONDS', 30),
    warmup: positiveNumber('BENCH_WARMUP_SECONDS', 2),
    connections: Math.round(positiveNumber('BENCH_AUDIT_CONNECTIONS', 50)),
  };
  const loadBefore = os.loadavg();
  const reference = await measureWith(
    'chained in the transaction (reference)',
    MODULES.map((factory) => (factory === auditModule ? chainedInTransaction : factory)),
    settings,
  );
  const loadBetween = os.loadavg();
  const ours = await measureWith('waiting entries, batched passes', MODULES, settings);
  if (!reference || !ours) {
    log(`SKIPPED: no PostgreSQL server at ${redactUrl(testPgUrl)} (set TEST_PG_URL to one)`);
    return true;
  }
  const met = ours.perSecond >= TARGET_PER_SECOND;
  const failed = ours.failures.length > 0 || reference.failures.length > 0;
  const load = (avg: number[]) => avg.map((n) => n.toFixed(2)).join(' / ');
  const verdictOf = (m: Measured, judged: boolean) =>
    m.failures.length > 0
      ? `FAIL: ${m.failures.join('; ')}`
      : !judged
        ? 'reference'
        : met
          ? 'ok'
          : `FAIL: below ${fmt(TARGET_PER_SECOND)}/s`;
  const row = (m: Measured, judged: boolean) =>
    `| ${m.label} | ${fmt(m.perSecond)} | ${m.p50} ms | ${m.p99} ms | ${m.max} ms | ${fmt(m.created)} | ${fmt(m.verified)} | ${fmt(m.serviceUs)} µs | ${fmt(m.storeUs)} µs | ${verdictOf(m, judged)} |`;
  const cpuPerWrite = ours.serviceUs + ours.storeUs;
  await publishReport('audit', [
    '# Audit chain: audited writes per second for one organization (PostgreSQL store)',
    '',
    `- Date: ${new Date().toISOString()}; Node ${process.version}; ${os.cpus().length} cores shared by the service, PostgreSQL and the load generator`,
    `- Load: autocannon in a child process, ${settings.connections} connections, \`POST /api/v1/projects\` with a write key (a new project and its \`project.create\` entry per request), ${settings.warmup} s warm-up then ${settings.seconds} s measured, each service on a fresh database; the organization on Enterprise with limits no run reaches`,
    `- Load average (1 / 5 / 15 min) before the reference: ${load(loadBefore)}, before ours: ${load(loadBetween)}, after: ${load(os.loadavg())}`,
    `- Target: at least ${fmt(TARGET_PER_SECOND)} audited writes a second, the chain whole (\`GET /audit/verify\`), one entry per project, each listed with its seq and hash`,
    "- Reference, same run: the entry chained inside its change's transaction, under the chain's lock until the commit (the audit module without its request hooks: how every write was chained before)",
    '',
    '| Chaining | Audited writes/s | p50 | p99 | max | 201 answers | Chain entries verified | Service CPU / write | Store CPU / write | Result |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    row(reference, false),
    row(ours, true),
    '',
    `- Ours / reference: ${(ours.perSecond / reference.perSecond).toFixed(2)}× the writes a second.`,
    `- CPU per write, warm-up included: the service process (user + system) and this database's PostgreSQL backends (/proc). Ours ${fmt(cpuPerWrite)} µs in all: ${os.cpus().length} cores wholly given to this work would serve about ${fmt((os.cpus().length * 1e6) / cpuPerWrite)} writes a second, with nothing else running (the load generator and other work on the machine take their share).`,
    ...(ours.profile
      ? ['', formatProfile('Service CPU profile (BENCH_PROFILE=1, which slows the run)', ours.profile)]
      : []),
  ]);
  return !failed && met;
}

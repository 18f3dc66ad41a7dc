// Operating the service as a platform team does (issue: Prometheus metrics, OpenTelemetry traces,
// quiet logs, a drain that keeps its word), on real processes started as the README starts them:
// an embedded server without any of it, then an API process and a worker on a PostgreSQL store with
// METRICS_PORT and an OTLP endpoint (a local receiver), a real patch run, and SIGTERM during seeds.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../support/crash.ts';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../support/databases.ts';
import { call, type HttpSession, signIn } from '../support/http-client.ts';
import {
  freePort,
  killAll,
  REPO_ROOT,
  runToEnd,
  type ServiceProcess,
  scrubbedEnv,
  startProcess,
  tempDir,
} from '../support/server-process.ts';
import { seedDataDir } from '../support/store-template.ts';
import {
  listeningPorts,
  type OtlpReceiver,
  parseMetrics,
  sample,
  startOtlpReceiver,
} from './observability-support.ts';

const WITH_TRACING = ['--import', './src/observability/tracing.ts', 'src/main.ts'];
const PASSWORD = 'a long enough password';
const SECRET_KEY = 'cd'.repeat(32);

afterAll(() => killAll());

const requestLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.includes('"msg":"request completed"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('an embedded server without METRICS_PORT or OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let server: ServiceProcess;
  /** On the OTLP exporter's default port, when it is free: what a stray SDK would send to. */
  let defaultReceiver: OtlpReceiver | undefined;

  beforeAll(async () => {
    defaultReceiver = await startOtlpReceiver(4318).catch(() => undefined);
    if (!defaultReceiver)
      console.log('!! port 4318 is taken: "nothing is sent without the variable" is not checked');
    const dataDir = path.join(tempDir('dbops-obs-'), 'data');
    await seedDataDir(dataDir);
    server = await startProcess({
      args: [...WITH_TRACING, 'serve'],
      // Every other OTEL_* setting, and an exporter told to send at once: only the endpoint is missing.
      env: {
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    await server.ready();
  }, 120_000);
  afterAll(async () => {
    await server?.kill();
    await defaultReceiver?.close();
  });

  it('listens on the API port only, and answers /metrics there with the JSON 404 of unknown paths', async () => {
    expect(listeningPorts(server.child.pid ?? 0)).toEqual([server.port]);
    const answer = await fetch(`${server.base}/metrics`);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toEqual({ detail: 'Not Found' });
  });

  it('names its URL on one line at start, and logs one line per request but none for probes', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
    }
    const before = requestLines(server.output()).length;
    const answer = await fetch(
      `${server.base}/api/v1/projects/0b5bd5c2-41a4-4a0e-9c38-8f3c2f6c1d2e/nothing`,
      {
        headers: { 'x-request-id': 'obs-test-404' },
      },
    );
    expect(answer.status).toBe(404);
    await server.waitForOutput('obs-test-404');
    const lines = requestLines(server.output());
    // The readiness polls of the start and the probes above wrote nothing; the 404 wrote one line.
    expect(lines).toHaveLength(before + 1);
    expect(lines.filter((line) => line.route === '/healthz' || line.route === '/readyz')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({
      reqId: 'obs-test-404',
      method: 'GET',
      route: 'unmatched',
      status: 404,
      level: 30,
    });
    expect(typeof lines.at(-1)?.ms).toBe('number');
    const naming = server
      .output()
      .split('\n')
      .filter((line) => line.includes(server.base));
    expect(naming).toHaveLength(1);
    expect(JSON.parse(naming[0] ?? '{}')).toMatchObject({ url: server.base, store: 'embedded', workers: 4 });
    expect(server.output()).not.toContain('Server listening');
  });

  it('sends no trace anywhere', async () => {
    if (!defaultReceiver) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(defaultReceiver.requests).toBe(0);
  });
});

describe.skipIf(!(await pgAvailable()))(
  'an API process and a worker on PostgreSQL, scraped and traced',
  () => {
    const tag = `obs-${Date.now().toString(36)}`;
    const databases: TestPgDatabase[] = [];
    let receiver: OtlpReceiver;
    let api: ServiceProcess;
    let worker: ServiceProcess | undefined;
    let apiMetrics = '';
    let workerMetrics = '';
    let settings: Record<string, string> = {};
    let owner: HttpSession;
    let project = '';
    const post = (url: string, body: unknown = {}) => call(api.base, 'POST', url, { session: owner }, body);
    const get = (url: string) => call(api.base, 'GET', url, { session: owner });
    const database = async () => {
      const created = await createTestPgDatabase();
      if (!created) throw new Error('PostgreSQL went away');
      databases.push(created);
      return created;
    };
    const cli = async (args: string[], extra: Record<string, string> = {}) => {
      const done = await runToEnd(process.execPath, ['src/main.ts', ...args], {
        env: { ...scrubbedEnv(), ...settings, LOG_LEVEL: 'warn', ...extra },
        timeoutMs: 60_000,
      });
      expect(done.code, done.stderr).toBe(0);
    };
    const traced = () => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    const startWorker = async (graceSeconds: number) => {
      const metricsPort = await freePort();
      const started = await startProcess({
        args: [...WITH_TRACING, 'worker'],
        env: {
          ...settings,
          ...traced(),
          LOG_LEVEL: 'info',
          METRICS_PORT: String(metricsPort),
          SHUTDOWN_GRACE_S: String(graceSeconds),
        },
      });
      await started.waitForOutput('worker started', 60_000);
      workerMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
      return started;
    };
    const until = async (id: string, statuses: string[], timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = (await get(`/api/v1/runs/${id}`)).body;
        if (statuses.includes(current.status)) return current;
        if (Date.now() > deadline)
          throw new Error(`run ${id} stayed ${current.status}: ${JSON.stringify(current)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const connectionTo = async (target: TestPgDatabase, name: string) => {
      const url = new URL(target.url);
      const created = await post('/api/v1/connections', {
        project_id: project,
        name: `${name} ${tag}`,
        dialect: 'postgresql',
        host: url.hostname,
        port: Number(url.port || 5432),
        database: url.pathname.slice(1),
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password) || 'unused',
        ssl_mode: 'disable',
        environment: 'development',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const scrape = async (url: string) => {
      const answer = await fetch(url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return answer.text();
    };

    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      const store = await database();
      settings = { DATABASE_URL: store.url, SECRET_KEY };
      await cli(['migrate']);
      await cli(['create-admin', '--email', `${tag}@example.com`, '--org', `Obs ${tag}`], {
        ADMIN_PASSWORD: PASSWORD,
      });
      await cli(['set-plan', '--org', `Obs ${tag}`, '--plan', 'enterprise']);
      const apiMetricsPort = await freePort();
      api = await startProcess({
        args: [...WITH_TRACING, 'serve'],
        env: { ...settings, ...traced(), JOBS_IN_SERVER: 'false', METRICS_PORT: String(apiMetricsPort) },
      });
      apiMetrics = `http://127.0.0.1:${apiMetricsPort}/metrics`;
      [worker] = await Promise.all([startWorker(25), api.ready()]);
      owner = await signIn(api.base, `${tag}@example.com`, PASSWORD);
      const created = await post('/api/v1/projects', { name: `Obs ${tag}` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      project = created.body.id;
    }, 180_000);
    afterAll(async () => {
      killAll();
      await receiver?.close();
      for (const db of databases) await db.drop();
    });

    let executeRun = '';
    let patchConnectionId = '';
    let target: TestPgDatabase;
    const ROWS = 1234;

    it('counts real requests and a real run with the right labels', async () => {
      target = await database();
      await query(target.url, `create table accounts (id int primary key, n int not null)`);
      await query(target.url, `insert into accounts select g, 0 from generate_series(1, ${ROWS}) g`);
      patchConnectionId = await connectionTo(target, 'patched');
      const patch = await post('/api/v1/patches', {
        project_id: project,
        connection_id: patchConnectionId,
        title: 'bump every account',
        sql: "UPDATE accounts SET n = n + 7 WHERE id > 0 AND 'secret-literal' <> ''",
      });
      expect(patch.status, JSON.stringify(patch.body)).toBe(201);
      const executed = await post(`/api/v1/patches/${patch.body.id}/execute`);
      expect(executed.status, JSON.stringify(executed.body)).toBe(202);
      executeRun = executed.body.id;
      expect((await until(executeRun, ['succeeded', 'failed'], 60_000)).status).toBe('succeeded');
      expect((await get(`/api/v1/patches/${patch.body.id}/nothing-here`)).status).toBe(404);

      const fromApi = parseMetrics(await scrape(apiMetrics));
      expect(
        sample(fromApi.samples, 'dbops_http_requests_total', {
          method: 'POST',
          route: '/api/v1/patches/:id/execute',
          status: '202',
        }),
      ).toBe(1);
      expect(
        sample(fromApi.samples, 'dbops_http_request_duration_seconds_count', {
          method: 'POST',
          route: '/api/v1/patches/:id/execute',
        }),
      ).toBe(1);
      expect(
        sample(fromApi.samples, 'dbops_http_requests_total', { route: 'unmatched', status: '404' }),
      ).toBe(1);
      // No path with an id ever becomes a label.
      expect([...fromApi.samples.keys()].some((key) => key.includes(patch.body.id))).toBe(false);

      const fromWorker = parseMetrics(await scrape(workerMetrics));
      expect(
        sample(fromWorker.samples, 'dbops_runs_total', { kind: 'patch_execute', status: 'succeeded' }),
      ).toBe(1);
      expect(sample(fromWorker.samples, 'dbops_runs_total', { kind: 'seed_run', status: 'failed' })).toBe(0);
      expect(sample(fromWorker.samples, 'dbops_run_rows_total', { kind: 'patch_execute' })).toBe(ROWS);
      expect(sample(fromWorker.samples, 'dbops_run_duration_seconds_count', { kind: 'patch_execute' })).toBe(
        1,
      );
      expect(
        sample(fromWorker.samples, 'dbops_queue_jobs', { queue: 'run_execute', state: 'completed' }),
      ).toBeGreaterThanOrEqual(1);
      expect(sample(fromWorker.samples, 'dbops_queue_jobs', { queue: 'run_execute', state: 'failed' })).toBe(
        0,
      );
      expect(sample(fromWorker.samples, 'dbops_queue_oldest_job_age_seconds', { queue: 'run_execute' })).toBe(
        0,
      );
      expect(sample(fromWorker.samples, 'dbops_drift_reports_open')).toBe(0);
      expect(
        sample(fromWorker.samples, 'dbops_store_pool_connections', { state: 'idle' }),
      ).toBeGreaterThanOrEqual(0);
      expect(sample(fromWorker.samples, 'dbops_webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
      for (const family of [
        'dbops_http_requests_total',
        'dbops_http_request_duration_seconds',
        'dbops_runs_total',
        'dbops_run_duration_seconds',
        'dbops_run_rows_total',
        'dbops_queue_jobs',
        'dbops_queue_oldest_job_age_seconds',
        'dbops_webhook_deliveries_total',
        'dbops_audit_export_lag_seconds',
        'dbops_drift_reports_open',
        'dbops_store_pool_connections',
        'dbops_rate_limited_total',
        'process_cpu_seconds_total',
        'nodejs_eventloop_lag_seconds',
      ])
        expect(fromWorker.help, family).toContain(family);
    }, 120_000);

    it('traces the request, the run in its trace, and the statements without their values', async () => {
      expect(executeRun).not.toBe('');
      const deadline = Date.now() + 20_000;
      const runSpan = () =>
        receiver.spans.find(
          (s) => s.name === 'run patch_execute' && s.attributes['dbops.run.id'] === executeRun,
        );
      while (!runSpan() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const run = runSpan();
      expect(run, `spans: ${[...new Set(receiver.spans.map((s) => s.name))].join(', ')}`).toBeDefined();
      expect(run?.service).toBe('dbops');
      expect(run?.attributes).toMatchObject({
        'dbops.run.kind': 'patch_execute',
        'dbops.project.id': project,
        'dbops.run.rows': ROWS,
      });
      const trace = receiver.spans.filter((s) => s.traceId === run?.traceId);
      // The request that queued it: the HTTP server span and Fastify's own, in the API process.
      expect(
        trace.some((s) => s.scope.includes('instrumentation-http') && String(s.name).startsWith('POST')),
      ).toBe(true);
      expect(trace.some((s) => s.scope.includes('fastify'))).toBe(true);
      const statements = trace.filter((s) => typeof s.attributes['db.query.text'] === 'string');
      // The store's statements (the request's and the run's) and the target's.
      expect(
        statements.some(
          (s) => s.attributes['db.namespace'] === new URL(settings.DATABASE_URL ?? '').pathname.slice(1),
        ),
      ).toBe(true);
      const onTarget = statements.filter((s) => s.attributes['db.namespace'] === target.name);
      expect(onTarget.map((s) => s.attributes['db.query.text'])).toContain(
        'UPDATE accounts SET n = n + ? WHERE id > ? AND ? <> ?',
      );
      // The run's statement names the run it was made for.
      const update = onTarget.find((s) =>
        String(s.attributes['db.query.text']).startsWith('UPDATE accounts'),
      );
      expect(update?.attributes['dbops.run.id']).toBe(executeRun);
      // And the connection it was made on; the store's statements name none.
      expect(update?.attributes['dbops.connection.id']).toBe(patchConnectionId);
      const onStore = statements.filter((s) => s.attributes['db.namespace'] !== target.name);
      expect(onStore.filter((s) => s.attributes['dbops.connection.id'] !== undefined)).toEqual([]);
      for (const span of receiver.spans) {
        const text = JSON.stringify(span.attributes);
        expect(text).not.toContain('secret-literal');
        expect(text).not.toContain(PASSWORD);
      }
    }, 60_000);

    it('has every metric the dashboard and the alerts query', async () => {
      const exposed = new Set([
        ...parseMetrics(await scrape(apiMetrics)).help,
        ...parseMetrics(await scrape(workerMetrics)).help,
      ]);
      const queried = new Set<string>();
      for (const file of ['deploy/grafana/dbops.json', 'deploy/prometheus/alerts.yml']) {
        const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
        for (const [name] of text.matchAll(/\b(?:dbops|process|nodejs)_[a-z0-9_]+\b/g)) queried.add(name);
      }
      expect(queried.size).toBeGreaterThan(8);
      const family = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
      const missing = [...queried].filter((name) => !exposed.has(name) && !exposed.has(family(name)));
      expect(missing).toEqual([]);
    }, 60_000);

    const seeded = async (rows: number) => {
      const seededTarget = await database();
      await query(seededTarget.url, 'create table customers (id int primary key, name text not null)');
      const scenario = await post('/api/v1/seed/scenarios', {
        project_id: project,
        connection_id: await connectionTo(seededTarget, `seeded ${rows}`),
        name: `customers ${rows}`,
        seed: 3,
        definition: { tables: [{ table: 'customers', rows }] },
      });
      expect(scenario.status, JSON.stringify(scenario.body)).toBe(201);
      const count = async () =>
        Number((await query(seededTarget.url, 'select count(*)::int as n from customers'))[0].n);
      return { scenario: scenario.body.id as string, count };
    };

    it('SIGTERM lets a seed that ends within the grace finish, then exits', async () => {
      if (worker) await worker.terminate(60_000);
      worker = await startWorker(60);
      const { scenario, count } = await seeded(150_000);
      const started = await post(`/api/v1/seed/scenarios/${scenario}/run`);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      await until(started.body.id, ['running'], 30_000);
      const exit = await worker.terminate(75_000);
      const output = worker.output();
      worker = undefined;
      expect(exit.code, output).toBe(0);
      const ended = await until(started.body.id, ['succeeded', 'failed'], 5_000);
      expect(ended.status, `${JSON.stringify(ended)}\n${output}`).toBe('succeeded');
      expect(await count()).toBe(150_000);
      expect(output).toMatch(/"msg":"shutting down \(SIGTERM\)/);
      expect(output).toMatch(/"msg":"stopped after \d+ ms: 1 run\(s\) finished, 0 handed back"/);
      // Every line the run wrote names it.
      const runLines = output.split('\n').filter((line) => line.includes('"kind":"seed_run"'));
      for (const line of runLines) expect(JSON.parse(line).run_id).toBe(started.body.id);
    }, 150_000);

    it('SIGTERM during a seed longer than the grace hands it back with nothing written, and exits within the grace plus a few seconds', async () => {
      const graceSeconds = 2;
      worker = await startWorker(graceSeconds);
      const { scenario, count } = await seeded(4_000_000);
      const started = await post(`/api/v1/seed/scenarios/${scenario}/run`);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      await until(started.body.id, ['running'], 30_000);
      const exit = await worker.terminate((graceSeconds + 15) * 1000);
      const output = worker.output();
      worker = undefined;
      expect(exit.code, output).toBe(0);
      // Never stopped before the grace; handed back at the next checkpoint after it.
      expect(exit.ms).toBeGreaterThanOrEqual(graceSeconds * 1000);
      expect(exit.ms, output).toBeLessThan((graceSeconds + 8) * 1000);
      const run = await get(`/api/v1/runs/${started.body.id}`);
      expect(run.body.status).toBe('failed');
      // Failed as interrupted, with nothing written (the kind's recovery, which asks the target, words it).
      expect(run.body.error).toMatch(/^interrupted\b.*nothing (was |half-)?written/);
      expect(await count()).toBe(0);
      expect(output).toContain(`"runs_handed_back":["${started.body.id}"]`);
      expect(output).toMatch(/"msg":"stopped after \d+ ms: 0 run\(s\) finished, 1 handed back"/);
    }, 150_000);
  },
);

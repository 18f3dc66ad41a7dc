// Crash safety (issue 21): the worker process is killed with SIGKILL at random points while it
// executes a patch on PostgreSQL, again and again. Each time the next worker fails the run at once
// (the dead worker's lock is free: src/jobs/worker-liveness.ts), the target is untouched or fully
// patched (one transaction), and in the end an execution completes and the patch is applied once.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../support/databases.ts';
import { call, type HttpSession, signIn } from '../support/http-client.ts';
import {
  killAll,
  runToEnd,
  type ServiceProcess,
  scrubbedEnv,
  startProcess,
} from '../support/server-process.ts';

const PASSWORD = 'a long enough password';
const SECRET_KEY = 'ef'.repeat(32);
const ROWS = 150_000;
const KILLS = 3;
const tag = Date.now().toString(36);

async function query(url: string | undefined, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe('kill -9 of the worker while it executes a patch on PostgreSQL', async () => {
  const available = await pgAvailable();
  let store: TestPgDatabase | undefined;
  let target: TestPgDatabase | undefined;
  let api: ServiceProcess | undefined;
  let settings: Record<string, string>;
  let owner: HttpSession;

  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const done = await runToEnd(process.execPath, ['src/main.ts', ...args], {
      env: { ...scrubbedEnv(), ...settings, LOG_LEVEL: 'warn', ...extra },
      timeoutMs: 60_000,
    });
    expect(done.code, done.stderr).toBe(0);
  };
  const startWorker = async () => {
    const worker = await startProcess({
      args: ['src/main.ts', 'worker'],
      env: { ...settings, LOG_LEVEL: 'info' },
    });
    await worker.waitForOutput('worker started', 45_000);
    return worker;
  };
  const run = async (id: string) =>
    (await call(api?.base ?? '', 'GET', `/api/v1/runs/${id}`, { session: owner })).body;
  const until = async (id: string, statuses: string[], timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await run(id);
      if (statuses.includes(current.status)) return current;
      if (Date.now() > deadline) throw new Error(`run ${id} stayed ${current.status} for ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const total = async () => Number((await query(target?.url, 'select sum(n)::int8 as s from accounts'))[0].s);

  beforeAll(async () => {
    if (!available) return;
    store = await createTestPgDatabase();
    target = await createTestPgDatabase();
    settings = { DATABASE_URL: store?.url ?? '', SECRET_KEY };
    await cli(['migrate']);
    await cli(['create-admin', '--email', `crash-${tag}@example.com`, '--org', 'Crash'], {
      ADMIN_PASSWORD: PASSWORD,
    });
    await cli(['set-plan', '--org', 'Crash', '--plan', 'enterprise']);
    await query(target?.url, 'create table accounts (id int primary key, n int not null)');
    await query(target?.url, `insert into accounts select g, 0 from generate_series(1, ${ROWS}) g`);
    api = await startProcess({ env: { ...settings, JOBS_IN_SERVER: 'false' } });
    await api.ready();
    owner = await signIn(api.base, `crash-${tag}@example.com`, PASSWORD);
  }, 120_000);

  afterAll(async () => {
    killAll();
    await store?.drop();
    await target?.drop();
  });

  it.skipIf(!available)(
    'fails the run at once, leaves the target all or nothing, and a re-run applies once',
    async () => {
      const base = api?.base ?? '';
      const project = await call(
        base,
        'POST',
        '/api/v1/projects',
        { session: owner },
        { name: `Crash ${tag}` },
      );
      const url = new URL(target?.url ?? '');
      const connection = await call(
        base,
        'POST',
        '/api/v1/connections',
        { session: owner },
        {
          project_id: project.body.id,
          name: `target ${tag}`,
          dialect: 'postgresql',
          host: url.hostname,
          port: Number(url.port || 5432),
          database: url.pathname.slice(1),
          username: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password) || 'unused',
          ssl_mode: 'disable',
          environment: 'development',
        },
      );
      expect(connection.status, JSON.stringify(connection.body)).toBe(201);
      const patch = await call(
        base,
        'POST',
        '/api/v1/patches',
        { session: owner },
        {
          project_id: project.body.id,
          connection_id: connection.body.id,
          title: 'bump every account',
          sql: 'UPDATE accounts SET n = n + 1 WHERE id > 0',
        },
      );
      expect(patch.status, JSON.stringify(patch.body)).toBe(201);

      let worker = await startWorker();
      const outcomes: string[] = [];
      for (let kill = 0; kill < KILLS; kill++) {
        const started = await call(
          base,
          'POST',
          `/api/v1/patches/${patch.body.id}/execute`,
          { session: owner },
          {},
        );
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        await until(started.body.id, ['running'], 20_000);
        // Somewhere in the execution: introspection, images, the update, its commit.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 1_500)));
        await worker.kill();
        const next = startWorker();
        worker = await next;
        const failed = await until(started.body.id, ['failed', 'succeeded'], 5_000);
        const sum = await total();
        outcomes.push(`${failed.status} (${failed.error ?? 'no error'}), target total ${sum}`);
        if (failed.status === 'succeeded') break;
        expect(failed.error).toMatch(/interrupted/);
        expect([0, ROWS]).toContain(sum);
        // Killed after its commit: the patch is executed, and the next request is refused (409).
        if (sum === ROWS) break;
      }
      console.log(`kill -9 during patch execute: ${outcomes.join('; ')}`);
      const finalRun = await call(
        base,
        'POST',
        `/api/v1/patches/${patch.body.id}/execute`,
        { session: owner },
        {},
      );
      if (finalRun.status === 202) {
        const done = await until(finalRun.body.id, ['failed', 'succeeded'], 60_000);
        expect(done.error).toBeNull();
        expect(done.status).toBe('succeeded');
      } else {
        // The patch had been applied before the kill: it is executed, never applied again.
        expect(finalRun.status).toBe(409);
      }
      expect(await total()).toBe(ROWS);
      const patched = await call(base, 'GET', `/api/v1/patches/${patch.body.id}`, { session: owner });
      expect(patched.body.status).toBe('executed');
      // Only the successful execution's images are left in the backup schema.
      const images = await query(
        target?.url,
        "select table_name from information_schema.tables where table_schema = 'dbops_backup'",
      );
      expect(images.length).toBeLessThanOrEqual(1);
      await worker.terminate();
    },
    120_000,
  );
});

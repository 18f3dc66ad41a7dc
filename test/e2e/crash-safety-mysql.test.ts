// Crash safety of MySQL migrations: the worker process is killed with SIGKILL at random
// points while it applies a migration of several slow ALTERs (tables with rows) to MariaDB, whose
// DDL commits statement by statement. After each kill, the next worker fails the run at once and
// settles it from the run's journal (migration-journal.ts) and the target (the statement in flight
// classified by introspection, once the dead process's session has been ended): the run's report
// must be exactly what the target shows, statement by statement, and the migration `applied` only
// when every statement is. Then compare + apply again, killed again, until an apply without a kill
// finishes; the rows are intact. Built like crash-safety.test.ts (PostgreSQL store, one API and
// one worker process).
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionBody } from '../support/connections.ts';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../support/databases.ts';
import { call, type HttpSession, signIn } from '../support/http-client.ts';
import { createTestMysqlDatabase, mysqlAvailable, type TestMysqlDatabase } from '../support/mysql.ts';
import {
  killAll,
  runToEnd,
  type ServiceProcess,
  scrubbedEnv,
  startProcess,
} from '../support/server-process.ts';

const PASSWORD = 'a long enough password';
const SECRET_KEY = 'ab'.repeat(32);
const TABLES = { a: 300_000, b: 150_000, c: 150_000 };
const KILLS = 3;
const tag = Date.now().toString(36);

async function onTarget<T>(url: string, work: (connection: mysql.Connection) => Promise<T>): Promise<T> {
  const connection = await mysql.createConnection({ uri: url, multipleStatements: true });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** What information_schema says of each table's `v` column: `bigint` once its ALTER ran. */
async function columnTypes(url: string): Promise<Record<string, string>> {
  return onTarget(url, async (connection) => {
    const [rows] = await connection.query(
      "select table_name as t, data_type as d from information_schema.columns where table_schema = database() and column_name = 'v'",
    );
    return Object.fromEntries((rows as { t: string; d: string }[]).map((r) => [r.t, r.d]));
  });
}

describe('kill -9 of the worker at random points of a MySQL migration apply', async () => {
  const available = (await pgAvailable()) && (await mysqlAvailable());
  let store: TestPgDatabase | undefined;
  const targets: TestMysqlDatabase[] = [];
  let api: ServiceProcess | undefined;
  let worker: ServiceProcess | undefined;
  let settings: Record<string, string>;
  let owner: HttpSession;
  let projectId: string;
  const base = () => api?.base ?? '';
  const post = (url: string, body: unknown = {}) => call(base(), 'POST', url, { session: owner }, body);
  const get = (url: string) => call(base(), 'GET', url, { session: owner });

  const startWorker = async () => {
    const started = await startProcess({
      args: ['src/main.ts', 'worker'],
      env: { ...settings, LOG_LEVEL: 'info' },
    });
    await started.waitForOutput('worker started', 45_000);
    return started;
  };
  /** Polls `url` until `done` says the body is what the test waits for. */
  const until = async (url: string, done: (body: Record<string, unknown>) => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const body = (await get(url)).body;
      if (done(body)) return body;
      if (Date.now() > deadline) throw new Error(`${url} stayed ${JSON.stringify(body).slice(0, 2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const connectionTo = async (url: string) => {
    const created = await post('/api/v1/connections', connectionBody(projectId, url));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };
  const database = async () => {
    const created = await createTestMysqlDatabase();
    if (!created) throw new Error('MariaDB went away');
    targets.push(created);
    return created;
  };

  beforeAll(async () => {
    if (!available) return;
    store = await createTestPgDatabase();
    if (!store) throw new Error('PostgreSQL went away');
    settings = { DATABASE_URL: store.url, SECRET_KEY };
    // The first start of an empty store migrates it and creates the owner from ADMIN_* (README).
    api = await startProcess({
      env: {
        ...settings,
        JOBS_IN_SERVER: 'false',
        ADMIN_EMAIL: `crash-my-${tag}@example.com`,
        ADMIN_PASSWORD: PASSWORD,
        ADMIN_ORG: 'CrashMy',
      },
    });
    await api.ready();
    // The polling below needs more than the starter plan's 60 requests a minute.
    const plan = runToEnd(
      process.execPath,
      ['src/main.ts', 'set-plan', '--org', 'CrashMy', '--plan', 'enterprise'],
      {
        env: { ...scrubbedEnv(), ...settings, LOG_LEVEL: 'warn' },
        timeoutMs: 60_000,
      },
    );
    [worker] = await Promise.all([
      startWorker(),
      plan.then((done) => expect(done.code, done.stderr).toBe(0)),
    ]);
    owner = await signIn(api.base, `crash-my-${tag}@example.com`, PASSWORD);
    projectId = (await post('/api/v1/projects', { name: `Crash MySQL ${tag}` })).body.id;
  }, 120_000);

  afterAll(async () => {
    killAll();
    for (const target of targets) await target.drop();
    await store?.drop();
  });

  it.skipIf(!available)(
    'each interrupted apply reports exactly what the target shows, statement by statement, and a retry finishes',
    async () => {
      const [source, target] = [await database(), await database()];
      const names = Object.keys(TABLES);
      await onTarget(source.url, (c) =>
        c.query(names.map((t) => `create table ${t} (id int primary key, v bigint not null);`).join('')),
      );
      await onTarget(target.url, async (c) => {
        for (const [t, rows] of Object.entries(TABLES)) {
          await c.query(`create table ${t} (id int primary key, v int not null)`);
          await c.query(`insert into ${t} select seq, seq from seq_1_to_${rows}`);
        }
      });
      const sourceId = await connectionTo(source.url);
      const targetId = await connectionTo(target.url);
      const tableOf = (sql: string) => /^ALTER TABLE `(\w+)`/.exec(sql)?.[1] ?? '?';
      const outcomes: string[] = [];

      for (let attempt = 0; ; attempt++) {
        const compared = await post(`/api/v1/projects/${projectId}/migrations/compare`, {
          source_connection_id: sourceId,
          target_connection_id: targetId,
        });
        expect(compared.status, JSON.stringify(compared.body)).toBe(201);
        const statements = (compared.body.statements as { sql: string }[]).map((s) => tableOf(s.sql));
        expect(statements.length).toBeGreaterThan(0);
        const started = await post(`/api/v1/migrations/${compared.body.id}/apply`);
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        const runUrl = `/api/v1/runs/${started.body.id}`;

        if (attempt === KILLS) {
          const done = await until(runUrl, (r) => r.status === 'succeeded' || r.status === 'failed', 60_000);
          expect(done.error).toBeNull();
          outcomes.push(`${statements.join(',')}: applied without a kill`);
          break;
        }
        await until(runUrl, (r) => r.status === 'running', 20_000);
        // Somewhere in the ALTERs (each a copy of the table's rows), or before or after them.
        await new Promise((resolve) =>
          setTimeout(resolve, Math.floor(Math.random() * 250 * statements.length)),
        );
        await worker?.kill();
        worker = await startWorker();
        const ended = await until(runUrl, (r) => r.status === 'failed' || r.status === 'succeeded', 10_000);
        const migrationUrl = `/api/v1/migrations/${compared.body.id}`;
        const migration = await until(migrationUrl, (m) => m.status !== 'applying', 40_000);
        // The sweep fails the run first; the report is written once the target has been asked.
        const run = (await get(runUrl)).body;
        const types = await columnTypes(target.url);
        const shown = statements.map((t, index) => ({ index, applied: types[t] === 'bigint' }));
        const expected = {
          applied: shown.filter((s) => s.applied).map((s) => s.index),
          not_applied: shown.filter((s) => !s.applied).map((s) => s.index),
        };
        if (ended.status === 'succeeded') {
          expect(run.result).toMatchObject({ ...expected, not_applied: [] });
          outcomes.push(`${statements.join(',')}: ended before the kill`);
          break;
        }
        expect(run.error).toMatch(/interrupted/);
        expect(run.result, JSON.stringify(run.result)).toMatchObject({
          ...expected,
          failed: null,
          rolled_back: false,
        });
        const inFlight = run.result.in_flight as {
          index: number;
          applied: boolean | null;
          evidence: string;
        } | null;
        // The in-flight statement's effect is either visible or not: the target always tells here.
        if (inFlight) expect(inFlight.applied, inFlight.evidence).not.toBeNull();
        expect(migration.status).toBe(expected.not_applied.length === 0 ? 'applied' : 'failed');
        outcomes.push(
          `${statements.join(',')}: applied [${expected.applied}]` +
            (inFlight
              ? `, in flight ${inFlight.index} ${inFlight.applied ? 'applied' : 'not applied'}`
              : ', none started'),
        );
        if (expected.not_applied.length === 0) break;
      }
      console.log(`kill -9 during MySQL migration apply: ${outcomes.join('; ')}`);
      expect(await columnTypes(target.url)).toEqual({ a: 'bigint', b: 'bigint', c: 'bigint' });
      const counts = await onTarget(target.url, async (c) => {
        const [rows] = await c.query(
          'select (select count(*) from a) as a, (select count(*) from b) as b, (select count(*) from c) as c',
        );
        return (rows as Record<string, number>[])[0];
      });
      expect(counts).toEqual(TABLES);
    },
    120_000,
  );
});

// The harness of the kill -9 tests (test/e2e/crash-safety*.test.ts): a PostgreSQL store, one API
// process that works no jobs and one worker process, started as a user starts them; throw-away
// target databases; and the loop that starts a run, kills the worker with SIGKILL at a random point
// of it, starts another and checks what the interrupted run left.
import pg from 'pg';
import { expect, vi } from 'vitest';
import { createTestPgDatabase, type TestPgDatabase } from './databases.ts';
import { call, type HttpAnswer, type HttpSession, signIn } from './http-client.ts';
import {
  type Exit,
  killAll,
  runToEnd,
  type ServiceProcess,
  scrubbedEnv,
  startProcess,
} from './server-process.ts';

const PASSWORD = 'a long enough password';
const SECRET_KEY = 'ef'.repeat(32);
/**
 * The sweep fails the run first and settles its subject after (the kind's `interrupted` hook asks
 * the target, waiting up to 15 s on a transaction the server is still ending): the checks are
 * retried for this long before they fail.
 */
const SETTLED_WITHIN_MS = 20_000;

/** One statement on a fresh connection to `url` (a target, seen from outside the service). */
export async function query(url: string | undefined, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** What the run looks like once the worker that ran it was killed, and the target's state then. */
export type TargetState = 'before' | 'after';

export interface KillOptions {
  /** Kills before the last, unkilled run (default 3). */
  kills?: number;
  /**
   * The first kill lands this long (random, up to) after the run is seen running (default 200 ms):
   * well inside the shortest run, whose first kill must find it still working.
   */
  withinMs?: number;
  /** The later kills, up to this long (default 400 ms): as long as a run, to reach its commit. */
  laterWithinMs?: number;
  /** Checks of an interrupted run beyond its `interrupted` error (e.g. the tables it names). */
  interrupted?: (run: Record<string, unknown>, state: TargetState) => Promise<void> | void;
}

export interface CrashHarness {
  /** Starts the store, the processes and a project (call it only when PostgreSQL is available). */
  start(): Promise<void>;
  stop(): Promise<void>;
  post(url: string, body?: unknown): Promise<HttpAnswer>;
  get(url: string): Promise<HttpAnswer>;
  projectId(): string;
  /** A new throw-away database, dropped by `stop()`. */
  database(): Promise<TestPgDatabase>;
  /** A PostgreSQL connection of the project to the database at `url`; its id. */
  connectionTo(target: { url: string }, name: string): Promise<string>;
  /** SIGTERM to the worker: its exit and what it printed; `startWorker` brings one back. */
  terminateWorker(timeoutMs: number): Promise<{ exit: Exit & { ms: number }; output: string }>;
  startWorker(): Promise<void>;
  /** What the running worker printed so far (its log, for failure messages). */
  workerOutput(): string;
  /** Polls the run until its status is one of `statuses`. */
  until(id: string, statuses: string[], timeoutMs: number): Promise<Record<string, unknown>>;
  /** kill -9 of the worker while it works runs started by `start`; see the function's comment. */
  killRepeatedly(
    start: () => Promise<HttpAnswer>,
    consistent: () => Promise<TargetState>,
    options?: KillOptions,
  ): Promise<string[]>;
}

export function createCrashHarness(name: string): CrashHarness {
  const tag = `${name}-${Date.now().toString(36)}`;
  const databases: TestPgDatabase[] = [];
  let api: ServiceProcess | undefined;
  let worker: ServiceProcess | undefined;
  let settings: Record<string, string> = {};
  let owner: HttpSession;
  let project = '';
  const base = () => api?.base ?? '';
  const post = (url: string, body: unknown = {}) => call(base(), 'POST', url, { session: owner }, body);
  const get = (url: string) => call(base(), 'GET', url, { session: owner });

  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const done = await runToEnd(process.execPath, ['src/main.ts', ...args], {
      env: { ...scrubbedEnv(), ...settings, LOG_LEVEL: 'warn', ...extra },
      timeoutMs: 60_000,
    });
    expect(done.code, done.stderr).toBe(0);
  };
  const startWorker = async () => {
    const started = await startProcess({
      args: ['src/main.ts', 'worker'],
      env: { ...settings, LOG_LEVEL: 'info' },
    });
    await started.waitForOutput('worker started', 45_000);
    return started;
  };
  const until = async (id: string, statuses: string[], timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = (await get(`/api/v1/runs/${id}`)).body;
      if (statuses.includes(current.status)) return current;
      if (Date.now() > deadline)
        throw new Error(`run ${id} stayed ${current.status} for ${timeoutMs} ms: ${JSON.stringify(current)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const database = async () => {
    const created = await createTestPgDatabase();
    if (!created) throw new Error('PostgreSQL went away');
    databases.push(created);
    return created;
  };

  return {
    async start() {
      const store = await database();
      settings = { DATABASE_URL: store.url, SECRET_KEY };
      await cli(['migrate']);
      // The processes start while the CLI creates the organization: nothing asks them anything
      // before it is there and on its plan.
      const admin = async () => {
        await cli(['create-admin', '--email', `crash-${tag}@example.com`, '--org', `Crash ${tag}`], {
          ADMIN_PASSWORD: PASSWORD,
        });
        await cli(['set-plan', '--org', `Crash ${tag}`, '--plan', 'enterprise']);
      };
      const processes = async () => {
        api = await startProcess({ env: { ...settings, JOBS_IN_SERVER: 'false' } });
        [worker] = await Promise.all([startWorker(), api.ready()]);
      };
      await Promise.all([admin(), processes()]);
      owner = await signIn(base(), `crash-${tag}@example.com`, PASSWORD);
      const created = await post('/api/v1/projects', { name: `Crash ${tag}` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      project = created.body.id;
    },
    async stop() {
      killAll();
      for (const db of databases) await db.drop();
    },
    post,
    get,
    projectId: () => project,
    database,
    async connectionTo(target, connectionName) {
      const url = new URL(target.url);
      const created = await post('/api/v1/connections', {
        project_id: project,
        name: `${connectionName} ${tag}`,
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
    },
    until,
    async terminateWorker(timeoutMs) {
      const stopping = worker;
      worker = undefined;
      if (!stopping) throw new Error('no worker runs');
      return { exit: await stopping.terminate(timeoutMs), output: stopping.output() };
    },
    async startWorker() {
      worker = await startWorker();
    },
    workerOutput: () => worker?.output() ?? '',

    /**
     * Starts the run (`start`), kills the worker at a random point once it runs, starts another and
     * checks the interrupted run and the target (`consistent`: 'before' or 'after'), `kills` times
     * or until a kill came after the commit; then runs it to its end. Returns what happened, for
     * the log.
     */
    async killRepeatedly(start, consistent, options = {}) {
      const kills = options.kills ?? 3;
      const withinMs = options.withinMs ?? 200;
      const laterWithinMs = options.laterWithinMs ?? 400;
      const outcomes: string[] = [];
      for (let kill = 0; kill < kills; kill++) {
        const started = await start();
        expect(started.status, JSON.stringify(started.body)).toBe(202);
        await until(started.body.id, ['running'], 20_000);
        // Somewhere in the run: introspection, set-up, the change, its commit, the report.
        const delay = Math.floor(Math.random() * (kill === 0 ? withinMs : laterWithinMs));
        await new Promise((resolve) => setTimeout(resolve, delay));
        await worker?.kill();
        worker = await startWorker();
        const ended = await until(started.body.id, ['failed', 'succeeded'], 5_000);
        const settled = { timeout: SETTLED_WITHIN_MS, interval: 200 };
        const state = await vi.waitFor(consistent, settled);
        // The first kill lands within the run (the runs are sized for it): else nothing was tested.
        if (kill === 0) expect(ended.status, 'the run ended before the kill').toBe('failed');
        const { interrupted } = options;
        if (ended.status === 'failed') {
          expect(ended.error).toMatch(/interrupted/);
          if (interrupted)
            await vi.waitFor(
              async () => interrupted((await get(`/api/v1/runs/${started.body.id}`)).body, state),
              settled,
            );
        }
        const final = (await get(`/api/v1/runs/${started.body.id}`)).body;
        outcomes.push(
          `killed at ${delay} ms: ${final.status} (${final.error ?? 'no error'}), target ${state}`,
        );
        // Killed after its commit: the change is there, and the subject is done, not run again.
        if (ended.status === 'succeeded' || state === 'after') return outcomes;
      }
      const last = await start();
      expect(last.status, JSON.stringify(last.body)).toBe(202);
      const done = await until(last.body.id, ['failed', 'succeeded'], 60_000);
      expect(done.error).toBeNull();
      const ms = Date.parse(String(done.finished_at)) - Date.parse(String(done.started_at));
      outcomes.push(`${done.status} without a kill in ${ms} ms`);
      return outcomes;
    },
  };
}

// Production shape (issue 21, DESIGN §5): 2 API processes that take no jobs (JOBS_IN_SERVER=false)
// and 2 workers, real child processes on loopback, against one PostgreSQL store and one Redis. What
// one process does, the others see at once: the rate limit is one count, a revoked key or session
// is refused by the other API, an approval given on one API releases a run asked on the other, each
// run is worked once by one of the workers, and every process stops on SIGTERM in bounded time.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../support/databases.ts';
import { call, type HttpSession, signIn } from '../support/http-client.ts';
import { redisAvailable, testRedisUrl } from '../support/rate-limits.ts';
import {
  killAll,
  runToEnd,
  type ServiceProcess,
  scrubbedEnv,
  startProcess,
} from '../support/server-process.ts';

const PASSWORD = 'a long enough password';
const SECRET_KEY = 'cd'.repeat(32);
const tag = Date.now().toString(36);
/** A client address of this run's own (the APIs trust the loopback as their proxy): sign-ins are
 * limited to 5 per minute per address, and other tests may share the Redis counters. */
let signIns = 0;
const clientIp = () => `10.${(Date.now() >> 8) & 255}.${process.pid & 255}.${++signIns}`;

describe('2 API processes and 2 workers on one PostgreSQL and one Redis', async () => {
  const available = (await pgAvailable()) && (await redisAvailable());
  let store: TestPgDatabase | undefined;
  let target: TestPgDatabase | undefined;
  let apis: ServiceProcess[] = [];
  let workers: ServiceProcess[] = [];
  let settings: Record<string, string>;

  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const done = await runToEnd(process.execPath, ['src/main.ts', ...args], {
      env: { ...scrubbedEnv(), ...settings, LOG_LEVEL: 'warn', ...extra },
      timeoutMs: 60_000,
    });
    expect(done.code, done.stderr).toBe(0);
    return done.stdout;
  };
  const targetQuery = (text: string) => query(target?.url, text);
  const query = async (url: string | undefined, text: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    if (!available) return;
    store = await createTestPgDatabase();
    target = await createTestPgDatabase();
    if (!store || !target) throw new Error('PostgreSQL went away');
    settings = { DATABASE_URL: store.url, SECRET_KEY, REDIS_URL: testRedisUrl };
    await cli(['migrate']);
    await cli(['create-admin', '--email', `limited-${tag}@example.com`, '--org', 'Limited'], {
      ADMIN_PASSWORD: PASSWORD,
    });
    await cli(['create-admin', '--email', `runner-${tag}@example.com`, '--org', 'Runner'], {
      ADMIN_PASSWORD: PASSWORD,
    });
    // Runs weigh 10 against the allowance: the organization that runs them is not the limited one.
    await cli(['set-plan', '--org', 'Runner', '--plan', 'enterprise']);
    await targetQuery('create table counters (id int primary key, n int not null)');
    await targetQuery('insert into counters select g, 0 from generate_series(1, 5) g');

    const api = { ...settings, JOBS_IN_SERVER: 'false', TRUSTED_PROXIES: '127.0.0.1' };
    const worker = { ...settings, LOG_LEVEL: 'info' };
    [apis, workers] = await Promise.all([
      Promise.all([startProcess({ env: api }), startProcess({ env: api })]),
      Promise.all([
        startProcess({ args: ['src/main.ts', 'worker'], env: worker }),
        startProcess({ args: ['src/main.ts', 'worker'], env: worker }),
      ]),
    ]);
    await Promise.all([
      ...apis.map((p) => p.ready()),
      ...workers.map((p) => p.waitForOutput('worker started', 45_000)),
    ]);
  }, 120_000);

  afterAll(async () => {
    killAll();
    await store?.drop();
    await target?.drop();
  });

  const [a, b] = [() => apis[0]?.base ?? '', () => apis[1]?.base ?? ''];

  it.skipIf(!available)(
    'counts one rate limit across both APIs: exactly 60 of 100 concurrent requests pass',
    async () => {
      const owner = await signIn(a(), `limited-${tag}@example.com`, PASSWORD, clientIp());
      const email = `member-${tag}@example.com`;
      const created = await call(
        a(),
        'POST',
        '/api/v1/users',
        { session: owner },
        {
          email,
          name: 'Member',
          org_role: 'member',
          password: PASSWORD,
        },
      );
      expect(created.status).toBe(201);
      // Signing in is counted by client IP, not against the member's own allowance.
      const member = await signIn(b(), email, PASSWORD, clientIp());
      // The windows are fixed minutes: the burst must not straddle two.
      const second = new Date().getUTCSeconds();
      if (second > 50) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          call(i % 2 === 0 ? a() : b(), 'GET', '/api/v1/projects', { session: member }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(60);
      expect(statuses.filter((s) => s === 429)).toHaveLength(40);
      const refused = answers.find((answer) => answer.status === 429);
      expect(refused?.body).toEqual({ detail: 'Rate limit exceeded: 60 per 1 minute' });
      expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    },
    60_000,
  );

  it.skipIf(!available)(
    'refuses a key or a session revoked on one API at once on the other',
    async () => {
      const owner = await signIn(a(), `runner-${tag}@example.com`, PASSWORD, clientIp());
      const key = await call(
        a(),
        'POST',
        '/api/v1/api-keys',
        { session: owner },
        { name: 'k', scopes: ['read'] },
      );
      expect(key.status).toBe(201);
      const bearer = { bearer: key.body.secret as string };
      // Warm on B: the principal is in its cache now.
      expect((await call(b(), 'GET', '/api/v1/projects', bearer)).status).toBe(200);
      expect((await call(b(), 'GET', '/api/v1/projects', bearer)).status).toBe(200);
      expect((await call(a(), 'DELETE', `/api/v1/api-keys/${key.body.id}`, { session: owner })).status).toBe(
        204,
      );
      const refused = await call(b(), 'GET', '/api/v1/projects', bearer);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ detail: 'API key revoked' });

      const other: HttpSession = await signIn(a(), `runner-${tag}@example.com`, PASSWORD, clientIp());
      expect((await call(b(), 'GET', '/api/v1/auth/me', { session: other })).status).toBe(200);
      expect((await call(a(), 'POST', '/api/v1/auth/logout', { session: other })).status).toBe(204);
      expect((await call(b(), 'GET', '/api/v1/auth/me', { session: other })).status).toBe(401);
    },
    60_000,
  );

  it.skipIf(!available)(
    'releases on one API a run approved on the other, and works every run exactly once',
    async () => {
      const owner = await signIn(a(), `runner-${tag}@example.com`, PASSWORD, clientIp());
      const approverEmail = `approver-${tag}@example.com`;
      expect(
        (
          await call(
            a(),
            'POST',
            '/api/v1/users',
            { session: owner },
            {
              email: approverEmail,
              name: 'Approver',
              org_role: 'admin',
              password: PASSWORD,
            },
          )
        ).status,
      ).toBe(201);
      const approver = await signIn(b(), approverEmail, PASSWORD, clientIp());
      const project = await call(a(), 'POST', '/api/v1/projects', { session: owner }, { name: `P ${tag}` });
      expect(project.status).toBe(201);
      const url = new URL(target?.url ?? '');
      const connection = (environment: string) =>
        call(
          a(),
          'POST',
          '/api/v1/connections',
          { session: owner },
          {
            project_id: project.body.id,
            name: `${environment} ${tag}`,
            dialect: 'postgresql',
            host: url.hostname,
            port: Number(url.port || 5432),
            database: url.pathname.slice(1),
            username: decodeURIComponent(url.username),
            password: decodeURIComponent(url.password) || 'unused',
            ssl_mode: 'disable',
            environment,
          },
        );
      const production = await connection('production');
      const development = await connection('development');
      expect([production.status, development.status]).toEqual([201, 201]);
      const patch = async (connectionId: string, id: number) => {
        const created = await call(
          a(),
          'POST',
          '/api/v1/patches',
          { session: owner },
          {
            project_id: project.body.id,
            connection_id: connectionId,
            title: `bump ${id}`,
            sql: `UPDATE counters SET n = n + 1 WHERE id = ${id}`,
          },
        );
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        return created.body.id as string;
      };
      const finished = async (runId: string) => {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const run = await call(b(), 'GET', `/api/v1/runs/${runId}`, { session: owner });
          if (['succeeded', 'failed', 'cancelled'].includes(run.body.status)) return run.body;
          if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${run.body.status}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };

      // Protected (production): asked on B, it waits; approved on A by someone else, it runs.
      const gated = await patch(production.body.id, 1);
      const waiting = await call(b(), 'POST', `/api/v1/patches/${gated}/execute`, { session: owner }, {});
      expect(waiting.status).toBe(202);
      expect(waiting.body.status).toBe('awaiting_approval');
      const decided = await call(
        a(),
        'PATCH',
        `/api/v1/approvals/${waiting.body.approval_id}`,
        { session: approver },
        {
          decision: 'approve',
        },
      );
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      // Not approved by the same session: a different process and a different user.
      expect((await finished(waiting.body.id)).status).toBe('succeeded');

      // Four more, asked alternately on both APIs, all at once: each is worked once.
      const ids = [2, 3, 4, 5];
      const patches = await Promise.all(ids.map((id) => patch(development.body.id, id)));
      const runs = await Promise.all(
        patches.map((id, i) =>
          call(i % 2 ? a() : b(), 'POST', `/api/v1/patches/${id}/execute`, { session: owner }, {}),
        ),
      );
      expect(runs.map((run) => run.status)).toEqual([202, 202, 202, 202]);
      const results = await Promise.all(runs.map((run) => finished(run.body.id)));
      expect(results.map((run) => run.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
      const counters = await targetQuery('select id, n from counters order by id');
      expect(counters).toEqual([1, 2, 3, 4, 5].map((id) => ({ id, n: 1 })));
      // Worked by the workers only: the API processes have no queue workers (JOBS_IN_SERVER=false).
      const workedBy = (await query(store?.url, 'select distinct worker_id from runs')).map((r) =>
        Number(String(r.worker_id).split(':')[1]),
      );
      const workerPids = workers.map((w) => w.child.pid);
      expect(workedBy.length).toBeGreaterThan(0);
      for (const pid of workedBy) expect(workerPids).toContain(pid);
    },
    90_000,
  );

  it.skipIf(!available)(
    'stops every process on SIGTERM within a bounded time',
    async () => {
      const exits = await Promise.all([...apis, ...workers].map((p) => p.terminate(30_000)));
      for (const exit of exits) {
        expect(exit).toMatchObject({ code: 0, signal: null });
        expect(exit.ms).toBeLessThan(30_000);
      }
    },
    60_000,
  );
});

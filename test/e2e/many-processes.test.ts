// Production shape (docs/architecture.md): 2 API processes that take no jobs (JOBS_IN_SERVER=false)
// and 2 workers, real child processes on loopback, against one PostgreSQL store and one Redis. What
// one process does, the others see at once: the rate limit is one count, a revoked key or session
// is refused by the other API, an approval given on one API releases a run asked on the other, each
// run is worked once by one of the workers, every scheduled job fires once per tick (all four run
// pg-boss's cron pass; every schedule is made to fire each minute), and every process stops on
// SIGTERM in bounded time.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_EXPIRY_JOB } from '../../src/modules/approvals/expiry-pass.ts';
import { AUDIT_EXPORT_SCHEDULE } from '../../src/modules/audit-export/audit-export.module.ts';
import { SESSION_CLEANUP_JOB } from '../../src/modules/auth/session-cleanup.ts';
import { BILLING_GRACE_JOB } from '../../src/modules/billing/billing.module.ts';
import { DRIFT_CHECK_JOB } from '../../src/modules/drift/drift.module.ts';
import { BACKUP_RETENTION_JOB } from '../../src/modules/patches/backup-retention.ts';
import { SNAPSHOT_RETENTION_JOB } from '../../src/modules/snapshots/snapshot-retention.ts';
import { WEBHOOK_SWEEP_SCHEDULE } from '../../src/modules/webhooks/webhooks.module.ts';
import { createTestPgDatabase, pgAvailable, type TestPgDatabase } from '../support/databases.ts';
import { call, type HttpSession, signIn } from '../support/http-client.ts';
import { redisAvailable, testRedisUrl } from '../support/rate-limits.ts';
import { enoughTicks, readScheduleTicks, type TicksSnapshot } from '../support/schedule-ticks.ts';
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
/**
 * Every schedule every minute (pg-boss's resolution; daily ones would need a day). The passes run
 * beside the other tests from the start, and the last test but one judges them: about a minute and
 * a half after the start at most, most of which the other tests already take.
 */
const EVERY_MINUTE = '* * * * *';
/** Ticks seen before judging: the first is closed by the time the second has run. */
const TICKS = 2;
const SCHEDULES_JUDGED_WITHIN_MS = 150_000;

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
    // The override is a deployment's setting: every process has it (the APIs send no schedule but
    // run pg-boss's cron pass too, so four processes compete for each occurrence).
    settings = {
      DATABASE_URL: store.url,
      SECRET_KEY,
      REDIS_URL: testRedisUrl,
      SCHEDULE_CRON_OVERRIDE: EVERY_MINUTE,
    };
    await cli(['migrate']);
    // The schedules' ticks are counted from the processes' start, and the schedule test waits for two
    // of them: the processes start as soon as the store is migrated, while the CLI creates the
    // organizations beside them (no request reaches the APIs before this hook ends, so nothing is
    // cached before the plan is set).
    const api = { ...settings, JOBS_IN_SERVER: 'false', TRUSTED_PROXIES: '127.0.0.1' };
    const worker = { ...settings, LOG_LEVEL: 'info' };
    const started = Promise.all([
      Promise.all([startProcess({ env: api }), startProcess({ env: api })]),
      Promise.all([
        startProcess({ args: ['src/main.ts', 'worker'], env: worker }),
        startProcess({ args: ['src/main.ts', 'worker'], env: worker }),
      ]),
    ]);
    await Promise.all([
      (async () => {
        await cli(['create-admin', '--email', `limited-${tag}@example.com`, '--org', 'Limited'], {
          ADMIN_PASSWORD: PASSWORD,
        });
        // `create-admin` starts an organization on Enterprise (docs/contract.md §11.3): the limited one is Starter.
        await cli(['set-plan', '--org', 'Limited', '--plan', 'starter']);
      })(),
      (async () => {
        await cli(['create-admin', '--email', `runner-${tag}@example.com`, '--org', 'Runner'], {
          ADMIN_PASSWORD: PASSWORD,
        });
        // Runs weigh 10 against the allowance: the organization that runs them is not the limited one.
        await cli(['set-plan', '--org', 'Runner', '--plan', 'enterprise']);
      })(),
      (async () => {
        await targetQuery('create table counters (id int primary key, n int not null)');
        await targetQuery('insert into counters select g, 0 from generate_series(1, 5) g');
      })(),
      (async () => {
        [apis, workers] = await started;
        await Promise.all([
          ...apis.map((p) => p.ready()),
          ...workers.map((p) => p.waitForOutput('worker started', 45_000)),
        ]);
      })(),
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
      // (The scheduled drift passes record their checks as runs with no worker: not these.)
      const workedBy = (
        await query(store?.url, "select distinct worker_id from runs where kind = 'patch_execute'")
      ).map((r) => Number(String(r.worker_id).split(':')[1]));
      const workerPids = workers.map((w) => w.child.pid);
      expect(workedBy.length).toBeGreaterThan(0);
      for (const pid of workedBy) expect(workerPids).toContain(pid);
    },
    90_000,
  );

  it.skipIf(!available)(
    'fires every scheduled job once per tick across the four processes, each pass worked once',
    async () => {
      let snapshot: TicksSnapshot = await readScheduleTicks(store?.url ?? '');
      const deadline = Date.now() + SCHEDULES_JUDGED_WITHIN_MS;
      while (!enoughTicks(snapshot, TICKS)) {
        if (Date.now() > deadline)
          throw new Error(`fewer than ${TICKS} closed ticks in time:\n${JSON.stringify(snapshot, null, 1)}`);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        snapshot = await readScheduleTicks(store?.url ?? '');
      }
      const names = snapshot.schedules.map((s) => s.name);
      // Every module's schedule, each on the override's cron.
      expect(names).toEqual(
        expect.arrayContaining([
          DRIFT_CHECK_JOB,
          BACKUP_RETENTION_JOB,
          SNAPSHOT_RETENTION_JOB,
          SESSION_CLEANUP_JOB,
          APPROVAL_EXPIRY_JOB,
          BILLING_GRACE_JOB,
          WEBHOOK_SWEEP_SCHEDULE,
          AUDIT_EXPORT_SCHEDULE,
        ]),
      );
      for (const schedule of snapshot.schedules) {
        const about = `${schedule.name}: ${JSON.stringify(schedule)}`;
        expect(schedule.cron, about).toBe(EVERY_MINUTE);
        // One forwarding per minute, the minutes consecutive: no tick sent twice, none skipped.
        const slots = schedule.forwarded.map((f) => f.slot);
        expect(slots.length, about).toBeGreaterThanOrEqual(TICKS);
        slots.forEach((slot, i) => {
          if (i > 0) expect(slot - (slots[i - 1] ?? 0), about).toBe(60_000);
        });
        // One pass per tick, sent within its minute's due window, run once and to its end.
        expect(schedule.passes, about).toHaveLength(slots.length);
        schedule.passes.forEach((pass, i) => {
          const late = pass.createdOn.getTime() - (slots[i] ?? 0);
          expect(late, about).toBeGreaterThanOrEqual(0);
          expect(late, about).toBeLessThan(75_000);
          expect({ state: pass.state, retries: pass.retryCount }, about).toEqual({
            state: 'completed',
            retries: 0,
          });
        });
      }
      // What the drift passes record agrees: one run per connection each pass checked, no more (a
      // pass run twice would have checked, and recorded, every connection twice).
      const drift = snapshot.schedules.find((s) => s.name === DRIFT_CHECK_JOB);
      const checked = (drift?.passes ?? []).reduce(
        (sum, pass) => sum + Number(pass.output?.checked ?? 0) + Number(pass.output?.failed ?? 0),
        0,
      );
      expect(snapshot.driftRuns).toBe(checked);
    },
    SCHEDULES_JUDGED_WITHIN_MS + 10_000,
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

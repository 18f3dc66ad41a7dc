import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../test/support/databases.ts';
import { openTemplateStore } from '../../test/support/store-template.ts';
import { compose } from '../compose.ts';
import { loadConfig, TARGET_DEFAULTS } from '../config.ts';
import { APPROVAL_EXPIRY_CRON, APPROVAL_EXPIRY_JOB } from '../modules/approvals/expiry-pass.ts';
import { AUDIT_EXPORT_SCHEDULE } from '../modules/audit-export/audit-export.module.ts';
import { SESSION_CLEANUP_JOB } from '../modules/auth/session-cleanup.ts';
import { BILLING_GRACE_JOB } from '../modules/billing/billing.module.ts';
import { DRIFT_CHECK_JOB } from '../modules/drift/drift.module.ts';
import { MODULES } from '../modules/index.ts';
import { BACKUP_RETENTION_JOB } from '../modules/patches/backup-retention.ts';
import { SNAPSHOT_RETENTION_JOB } from '../modules/snapshots/snapshot-retention.ts';
import { WEBHOOK_SWEEP_SCHEDULE } from '../modules/webhooks/webhooks.module.ts';
import { type Db, openStore, type Store } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { createJobs, type Jobs, type JobsLogger } from './boss.ts';
import { workJobs } from './index.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
// Once a year, so no scheduled job shows up beside the one a test sends.
const CRON = '7 3 1 1 *';
/** What every process registers with: the schedules, and drift's mail and target settings. */
const JOB_CONFIG = {
  sessionCleanupCron: CRON,
  drift: { checkCron: CRON, checkConcurrency: 2 },
  backupRetention: { days: 30, cron: CRON },
  snapshotRetention: { days: 90, cron: CRON },
  smtpUrl: undefined,
  mailFrom: 'dbops <dbops@localhost>',
  publicUrl: 'http://localhost:8000',
  targets: TARGET_DEFAULTS,
};
const SECRET_KEY = Buffer.alloc(32, 7);

const pgReachable = await pgAvailable();
if (!pgReachable) reportSkipped('src/jobs/boss.test.ts "jobs on PostgreSQL"', 'PostgreSQL', testPgUrl);

interface LogLine {
  level: 'error' | 'warn' | 'info';
  obj: object;
  msg: string;
}

function recordingLogger(): JobsLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (obj: object, msg: string): void => {
      lines.push({ level, obj, msg });
    };
  return { lines, error: at('error'), warn: at('warn'), info: at('info') };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** One user with four sessions and two login challenges; dead: the ones ended more than a day ago. */
async function seedSessions(db: Db, now: Date) {
  const orgId = randomUUID();
  const userId = randomUUID();
  await db.insertInto('organizations').values({ id: orgId, name: 'Acme' }).execute();
  await db
    .insertInto('users')
    .values({
      id: userId,
      org_id: orgId,
      email: `u-${userId}@example.com`,
      name: 'U',
      org_role: 'owner',
      password_hash: null,
      scim_external_id: null,
    })
    .execute();
  const session = (expiresAt: Date, revokedAt: Date | null = null) => ({
    id: randomUUID(),
    token_hash: randomBytes(32).toString('hex'),
    user_id: userId,
    ip: null,
    user_agent: null,
    expires_at: expiresAt,
    revoked_at: revokedAt,
  });
  const sessions = {
    expiredLongAgo: session(new Date(now.getTime() - 2 * DAY)),
    revokedLongAgo: session(new Date(now.getTime() + DAY), new Date(now.getTime() - 2 * DAY)),
    expiredRecently: session(new Date(now.getTime() - HOUR)),
    live: session(new Date(now.getTime() + DAY)),
  };
  await db.insertInto('sessions').values(Object.values(sessions)).execute();
  // Half-finished 2FA logins: one expired long ago (dead), one still open.
  const challenge = (expiresAt: Date) => ({
    id: randomUUID(),
    token_hash: randomBytes(32).toString('hex'),
    user_id: userId,
    method: 'password',
    created_at: new Date(expiresAt.getTime() - 5 * 60_000),
    expires_at: expiresAt,
  });
  await db
    .insertInto('login_challenges')
    .values([challenge(new Date(now.getTime() - 2 * DAY)), challenge(new Date(now.getTime() + 60_000))])
    .execute();
  return {
    ids: Object.fromEntries(Object.entries(sessions).map(([key, s]) => [key, s.id])) as Record<
      keyof typeof sessions,
      string
    >,
  };
}

function jobsSuite(openTestStore: () => Promise<{ store: Store; dispose(): Promise<void> }>) {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    // Reverse order: pg-boss stops before the store closes, the store closes before its database drops.
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  /** Every module's jobs on `jobs`, as a `worker` process registers them. */
  async function registerJobHandlers(
    jobs: Jobs,
    deps: {
      db: Db;
      logger: JobsLogger;
      config: Partial<typeof JOB_CONFIG> & typeof JOB_CONFIG;
      now?: () => Date;
      store: Store;
    },
  ) {
    const now = deps.now ?? (() => new Date());
    const composition = await compose({
      config: { ...loadConfig({}), ...deps.config },
      jobs: 'none',
      store: deps.store,
      migrate: false,
      secretKey: SECRET_KEY,
    });
    cleanups.push(() => composition.close());
    const modules = MODULES.map((module) => module({ ...composition, logger: deps.logger, now }));
    const working = await workJobs(jobs, {
      db: deps.db,
      store: deps.store,
      logger: deps.logger,
      now,
      modules,
      runKinds: composition.runKinds,
      schedules: true,
      pollingIntervalSeconds: 0.5,
    });
    cleanups.push(() => working.stop());
  }

  async function started(): Promise<{
    store: Store;
    jobs: Jobs;
    logger: ReturnType<typeof recordingLogger>;
  }> {
    const { store, dispose } = await openTestStore();
    cleanups.push(dispose);
    await migrateToLatest(store.db);
    const logger = recordingLogger();
    const jobs = createJobs({ store, logger });
    await jobs.start();
    cleanups.push(() => jobs.stop());
    return { store, jobs, logger };
  }

  it('schedules session_cleanup and, on a job, deletes the sessions dead for more than a day', async () => {
    const { store, jobs, logger } = await started();
    const now = new Date();
    const { ids } = await seedSessions(store.db, now);
    await registerJobHandlers(jobs, { db: store.db, store, logger, config: JOB_CONFIG, now: () => now });

    const schedules = await jobs.boss.getSchedules();
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(schedules.map((s) => ({ name: s.name, cron: s.cron, timezone: s.timezone })).sort(byName)).toEqual(
      [
        { name: SESSION_CLEANUP_JOB, cron: CRON, timezone: 'UTC' },
        { name: APPROVAL_EXPIRY_JOB, cron: APPROVAL_EXPIRY_CRON, timezone: 'UTC' },
        { name: DRIFT_CHECK_JOB, cron: CRON, timezone: 'UTC' },
        { name: BACKUP_RETENTION_JOB, cron: CRON, timezone: 'UTC' },
        { name: SNAPSHOT_RETENTION_JOB, cron: CRON, timezone: 'UTC' },
        { name: WEBHOOK_SWEEP_SCHEDULE, cron: '* * * * *', timezone: 'UTC' },
        { name: AUDIT_EXPORT_SCHEDULE, cron: '* * * * *', timezone: 'UTC' },
        { name: BILLING_GRACE_JOB, cron: '15 5 * * *', timezone: 'UTC' },
      ].sort(byName),
    );

    const id = await jobs.boss.send(SESSION_CLEANUP_JOB);
    expect(id).toEqual(expect.any(String));
    const job = await waitFor('the session_cleanup job to finish', async () => {
      const [found] = await jobs.boss.findJobs(SESSION_CLEANUP_JOB, { id: id ?? '' });
      return found && ['completed', 'failed'].includes(found.state) ? found : undefined;
    });
    expect({ state: job.state, output: job.output }).toEqual({
      state: 'completed',
      output: { deleted: 2, challenges_deleted: 1 },
    });

    const left = await store.db.selectFrom('sessions').select('id').execute();
    expect(left.map((row) => row.id).sort()).toEqual([ids.expiredRecently, ids.live].sort());
    expect(logger.lines).toContainEqual({
      level: 'info',
      obj: { job: SESSION_CLEANUP_JOB, deleted: 2, challenges_deleted: 1 },
      msg: 'dead sessions deleted',
    });
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('registers again (a restart, a new release) without duplicating, and updates what changed', async () => {
    const { store, jobs, logger } = await started();
    // The queue as an older release might have left it.
    await jobs.boss.createQueue(SESSION_CLEANUP_JOB, { policy: 'stately', retryLimit: 0 });
    const deps = { db: store.db, store, logger, config: JOB_CONFIG };
    await registerJobHandlers(jobs, deps);
    await registerJobHandlers(jobs, {
      ...deps,
      config: { ...JOB_CONFIG, sessionCleanupCron: '*/5 * * * *' },
    });
    const schedules = await jobs.boss.getSchedules(SESSION_CLEANUP_JOB);
    expect(schedules.map((s) => s.cron)).toEqual(['*/5 * * * *']);
    const queue = await jobs.boss.getQueue(SESSION_CLEANUP_JOB);
    expect({
      policy: queue?.policy,
      retryLimit: queue?.retryLimit,
      retryBackoff: queue?.retryBackoff,
    }).toEqual({
      policy: 'stately',
      retryLimit: 3,
      retryBackoff: true,
    });
  });

  return { started };
}

describe('jobs on PGlite (in memory)', () => {
  const { started } = jobsSuite(async () => {
    const store = await openTemplateStore('blank');
    return { store, dispose: () => store.close() };
  });

  // PGlite is one connection: were a Kysely transaction a plain BEGIN … COMMIT on it, a send from
  // elsewhere would run inside it and vanish with its rollback (docs/architecture.md).
  it('a send issued during a Kysely transaction waits for it, and survives its rollback', async () => {
    const { store, jobs } = await started();
    const probe = 'gateway_probe';
    await jobs.boss.createQueue(probe);
    const orgId = randomUUID();
    class Rollback extends Error {}
    let sent: Promise<string | null> | undefined;
    let whileOpen: string | undefined;

    await expect(
      store.db.transaction().execute(async (trx) => {
        await trx.insertInto('organizations').values({ id: orgId, name: 'rolled back' }).execute();
        sent = jobs.boss.send(probe, { orgId });
        whileOpen = await Promise.race([sent.then(() => 'landed'), sleep(500).then(() => 'waiting')]);
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);

    expect(whileOpen).toBe('waiting');
    const id = await sent;
    expect(id).toEqual(expect.any(String));
    const found = await jobs.boss.findJobs(probe, { id: id ?? '' });
    expect(found.map((job) => job.data)).toEqual([{ orgId }]);
    const org = await store.db.selectFrom('organizations').select('id').where('id', '=', orgId).execute();
    expect(org).toEqual([]);
  });
});

describe.skipIf(!pgReachable)('jobs on PostgreSQL', () => {
  jobsSuite(async () => {
    const database = (await createTestPgDatabase()) as TestPgDatabase;
    const store = await openStore({ kind: 'postgres', url: database.url });
    return {
      store,
      async dispose() {
        await store.close();
        await database.drop();
      },
    };
  });
});

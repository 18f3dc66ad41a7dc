// The drift_check schedule through pg-boss (a six-field cron firing every two seconds, which
// pg-boss reads with seconds), alerts whose job was lost sent by the next pass, and the outbox and
// log line when no SMTP server is configured. Real PostgreSQL target.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/app.ts';
import { loadPostgresSql } from '../../../test/support/corpus.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../../test/support/databases.ts';
import {
  driftJobConfig,
  driftRunsOf,
  orgOnPlan,
  PUBLIC_URL,
  recordingLogger,
  waitFor,
} from '../../../test/support/drift.ts';
import { registerModuleJobs } from '../../../test/support/schedules.ts';
import { freePort } from '../../../test/support/targets.ts';
import { createJobs, type Jobs } from '../../jobs/boss.ts';
import { createMailer } from '../../mail/mailer.ts';
import { DRIFT_CHECK_JOB, driftModule } from './drift.module.ts';
import { createDriftAlertSender } from './drift-alert.ts';

const API = '/api/v1';
const SHORT_CRON = '*/2 * * * * *';
const FAST_CRON = { cronMonitorIntervalSeconds: 1, cronWorkerIntervalSeconds: 1 };

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('drift schedule (src/jobs/drift-schedule.test.ts)', 'PostgreSQL', testPgUrl);

describe('the drift_check schedule, lost alerts and the outbox', { skip: !pgUp }, () => {
  let t: TestApp;
  let jobs: Jobs;
  let pg: TestPgDatabase;
  const logger = recordingLogger();

  beforeAll(async () => {
    // The app's alerts are only recorded here, never queued: a send lost between commit and queue.
    t = await createTestApp({ targets: { connectTimeoutMs: 3_000 } });
    jobs = createJobs({ store: t.store, logger, tuning: FAST_CRON });
    await jobs.start();
    pg = (await createTestPgDatabase())!;
  });
  afterAll(async () => {
    await jobs?.boss.unschedule(DRIFT_CHECK_JOB).catch(() => {});
    await jobs?.stop();
    await t?.close();
    await pg?.drop();
  });

  it('runs the pass on its cron through pg-boss, re-sends lost alerts, and writes the outbox without SMTP', async () => {
    const acme = await orgOnPlan(t, 'Acme');
    await loadPostgresSql(pg.url, 'create table t (id int primary key)');
    const cid = await acme.connect(pg.url, { name: 'app-db' });
    expect((await acme.owner.get(`${API}/connections/${cid}/drift`)).status).toBe(200);

    // Drift found by hand; its alert never reaches the queue, and a send that fails leaves it pending.
    await loadPostgresSql(pg.url, 'alter table t add column note text');
    const report = (await acme.owner.post(`${API}/connections/${cid}/drift/check`)).body.report;
    expect(t.alertsEnqueued).toEqual([report.id]);
    const failing = createDriftAlertSender({
      db: t.store.db,
      audit: t.composition.audit,
      mailer: createMailer({
        smtpUrl: `smtp://127.0.0.1:${await freePort()}`,
        from: 'dbops <alerts@example.com>',
        db: t.store.db,
        logger,
        now: t.now,
      }),
      publicUrl: PUBLIC_URL,
      logger,
      now: t.now,
    });
    await expect(failing(report.id)).rejects.toThrow();

    await registerModuleJobs(t, driftModule, jobs, {
      logger,
      config: driftJobConfig({ checkCron: SHORT_CRON }),
    });
    const schedules = await jobs.boss.getSchedules(DRIFT_CHECK_JOB);
    expect(schedules.map((s) => ({ cron: s.cron, timezone: s.timezone }))).toEqual([
      { cron: SHORT_CRON, timezone: 'UTC' },
    ]);
    // A scheduled pass (nobody sent it): the same drift files nothing new, the lost alert is queued.
    const scheduled = await waitFor('a scheduled drift_check to complete', async () => {
      const found = await jobs.boss.findJobs(DRIFT_CHECK_JOB);
      return found.find((job) => job.state === 'completed');
    });
    expect(scheduled.output).toMatchObject({
      connections: 1,
      checked: 1,
      drift: 1,
      new_reports: 0,
      failed: 0,
      alerts_requeued: 1,
    });
    const runs = await driftRunsOf(t, cid);
    expect(runs.at(-1)).toMatchObject({
      status: 'succeeded',
      created_by: null,
      params: { trigger: 'schedule' },
    });

    // The next scheduled pass sends it again; with no SMTP_URL it lands in the outbox and the log.
    const mail = await waitFor('the alert in the outbox', async () =>
      t.store.db.selectFrom('outbox').selectAll().executeTakeFirst(),
    );
    expect(mail).toMatchObject({
      recipients: [acme.owner.user.email],
      subject: '[dbops] Schema drift on "app-db" (development): 0 critical, 0 moderate, 1 minor',
    });
    expect(mail.text_body).toContain(`${PUBLIC_URL}/projects/${acme.projectId}/drifts/${report.id}`);
    expect(mail.html_body).toContain(
      '<li><strong>minor</strong> public.t: column added note (text NULL)</li>',
    );
    expect(logger.lines).toContainEqual({
      level: 'info',
      obj: expect.objectContaining({
        outbox_id: mail.id,
        to: [acme.owner.user.email],
        subject: mail.subject,
      }),
      msg: 'e-mail written to the outbox (no SMTP_URL configured)',
    });
    // Later passes find the same drift: still one report, one message.
    await sleep(2_500);
    expect(await t.store.db.selectFrom('drift_reports').select('id').execute()).toEqual([{ id: report.id }]);
    expect(await t.store.db.selectFrom('outbox').select('id').execute()).toHaveLength(1);
  });
});

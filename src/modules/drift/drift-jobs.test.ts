// Drift's jobs on pg-boss with the real PostgreSQL and MariaDB test servers and a real SMTP peer:
// the alert of a new report reaches the project admins once, by SMTP, with its content; the daily
// pass, called directly, checks every connection of Enterprise organizations only, at most N at a
// time, and a connection that is down does not stop the others. The schedule, lost alerts and the
// outbox are in drift-schedule.test.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { loadMysqlSql, loadPostgresSql } from '../../../test/support/corpus.ts';
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
import {
  createTestMysqlDatabase,
  mysqlAvailable,
  type TestMysqlDatabase,
  testMysqlUrl,
} from '../../../test/support/mysql.ts';
import { queueOf, registerModuleJobs, scheduleIn } from '../../../test/support/schedules.ts';
import { startSmtpServer, type TestSmtpServer } from '../../../test/support/smtp.ts';
import { freePort } from '../../../test/support/targets.ts';
import type { Module } from '../module.ts';
import { DRIFT_ALERT_JOB, DRIFT_CHECK_JOB, driftModule } from './drift.module.ts';
import { createDriftChecker } from './drift-check.ts';
import { createDriftPass, DRIFT_CHECK_ACTOR } from './drift-pass.ts';

const API = '/api/v1';

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('drift jobs (src/jobs/drift.test.ts)', 'PostgreSQL', testPgUrl);
const mysqlUp = await mysqlAvailable();
if (!mysqlUp) reportSkipped('drift jobs on MySQL (src/jobs/drift.test.ts)', 'MySQL', testMysqlUrl);

describe('drift jobs', { skip: !pgUp }, () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let pg: TestPgDatabase;
  let maria: TestMysqlDatabase | undefined;
  let acme: Awaited<ReturnType<typeof orgOnPlan>>;
  let drift: Module;
  let ordersId: string;
  let admins: string[];
  const logger = recordingLogger();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // The app's alerts go to pg-boss here; the drift workers are registered below.
    t = await createTestApp({ jobs: {}, targets: { connectTimeoutMs: 3_000 } });
    acme = await orgOnPlan(t, 'Acme');
    pg = (await createTestPgDatabase())!;
    await loadPostgresSql(
      pg.url,
      'create table orders (id bigint primary key, total numeric(10,2), note text)',
    );
    ordersId = await acme.connect(pg.url, { name: 'orders-db', environment: 'production' });

    // Who is told: the owner, an organization admin, a project admin; not a developer, a viewer, an
    // organization admin who was deactivated, nor anyone of another organization.
    const orgAdmin = await t.createUser(acme.orgId, 'admin');
    const member = async (role: string) => {
      const client = await t.createUser(acme.orgId, 'member');
      await acme.owner.post(`${API}/projects/${acme.projectId}/members`, { user_id: client.user.id, role });
      return client;
    };
    const projectAdmin = await member('admin');
    await member('developer');
    await member('viewer');
    const gone: Client = await t.createUser(acme.orgId, 'admin');
    await t.store.db.updateTable('users').set({ active: false }).where('id', '=', gone.user.id).execute();
    await orgOnPlan(t, 'Elsewhere');
    admins = [acme.owner, orgAdmin, projectAdmin].map((c) => c.user.email).sort();

    drift = await registerModuleJobs(t, driftModule, t.jobs!, {
      logger,
      config: driftJobConfig({ smtpUrl: smtp.url }),
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await pg?.drop();
    await maria?.drop();
  });

  it('e-mails a new report to the project admins through send_drift_alert, by SMTP, once', async () => {
    expect((await acme.owner.get(`${API}/connections/${ordersId}/drift`)).status).toBe(200);
    await loadPostgresSql(
      pg.url,
      'alter table orders drop column note; alter table orders alter column total type numeric(12,2); ' +
        'alter table orders add column "tag<b>" text; create index orders_total on orders (total);',
    );
    const check = await acme.owner.post(`${API}/connections/${ordersId}/drift/check`);
    expect(check.body.report).toMatchObject({
      severity: 'critical',
      summary: { critical: 1, moderate: 1, minor: 2 },
    });
    const reportId = check.body.report.id;
    const link = `${PUBLIC_URL}/projects/${acme.projectId}/drifts/${reportId}`;

    const [mail] = await smtp.waitFor(1);
    expect(mail!.from).toBe('alerts@example.com');
    expect(mail!.to).toEqual(admins);
    expect(mail!.subject).toBe(
      '[dbops] Schema drift on "orders-db" (production): 1 critical, 1 moderate, 2 minor',
    );
    expect(mail!.text.trimEnd()).toBe(
      [
        'Schema drift was detected on connection "orders-db" of project "Acme project".',
        '',
        `Connection:  orders-db (postgresql, 127.0.0.1 / ${pg.name})`,
        'Environment: production',
        'Severity:    critical (1 critical, 1 moderate, 2 minor)',
        `Detected at: ${check.body.report.created_at}`,
        '',
        'Most severe changes:',
        '  [critical] public.orders: column removed note (was text NULL)',
        '  [moderate] public.orders: column type changed total (numeric(10,2) → numeric(12,2))',
        '  [minor] public.orders: column added tag<b> (text NULL)',
        '  [minor] public.orders: index added orders_total (btree (total))',
        '',
        'Review and acknowledge the report:',
        link,
      ].join('\n'),
    );
    expect(mail!.html).toContain(`<a href="${link}">`);
    expect(mail!.html).toContain('<td>production</td>');
    expect(mail!.html).toContain(
      '<li><strong>critical</strong> public.orders: column removed note (was text NULL)</li>',
    );
    expect(mail!.html).toContain('column added tag&lt;b&gt; (text NULL)');
    expect(mail!.html).not.toContain('tag<b>');

    const job = await waitFor('the alert job to complete', async () => {
      const [found] = await t.jobs!.boss.findJobs(DRIFT_ALERT_JOB, { id: reportId });
      return found?.state === 'completed' ? found : undefined;
    });
    expect(job.output).toEqual({ status: 'sent', via: 'smtp', recipients: admins });
    const row = await t.store.db
      .selectFrom('drift_reports')
      .select(['alert_state', 'alert_sent_at'])
      .where('id', '=', reportId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ alert_state: 'sent', alert_sent_at: expect.any(Date) });

    // The same drift again, by hand and by the daily pass: no new report, no second e-mail.
    const again = await acme.owner.post(`${API}/connections/${ordersId}/drift/check`);
    expect(again.body.report.id).toBe(reportId);
    const pass = await scheduleIn(drift, DRIFT_CHECK_JOB).run();
    expect(pass).toMatchObject({ new_reports: 0, alerts_requeued: 0 });
    expect(await queueOf(drift, DRIFT_ALERT_JOB).work({ report_id: reportId })).toEqual({
      status: 'skipped',
      reason: 'sent',
    });
    await sleep(1_500);
    expect(smtp.received).toHaveLength(1);
  });

  it('checks Enterprise connections only, and a connection that is down does not stop the others', async () => {
    const downId = await acme.connect(`postgres://app@127.0.0.1:${await freePort()}/app`, { name: 'down' });
    let mariaId: string | undefined;
    if (mysqlUp) {
      maria = (await createTestMysqlDatabase())!;
      await loadMysqlSql(maria.url, 'create table items (id int primary key, label varchar(50))');
      mariaId = await acme.connect(maria.url, { name: 'items-db' });
    }
    const pro = await orgOnPlan(t, 'Pro org', 'pro');
    const starter = await orgOnPlan(t, 'Starter org', 'starter');
    const notChecked = [await pro.connect(pg.url), await starter.connect(pg.url)];

    const result = await scheduleIn(drift, DRIFT_CHECK_JOB).run();
    const acmeConnections = mariaId ? 3 : 2;
    expect(result).toMatchObject({
      connections: acmeConnections,
      checked: acmeConnections - 1,
      failed: 1,
      drift: 1,
      new_reports: 0,
      errors: [
        {
          connection_id: downId,
          error: expect.stringMatching(/^Connection "down" failed: The server is unreachable/),
        },
      ],
    });
    const [failedRun] = await driftRunsOf(t, downId);
    expect(failedRun).toMatchObject({
      status: 'failed',
      created_by: null,
      error: expect.stringMatching(/unreachable/),
      params: { trigger: 'schedule' },
    });
    if (mariaId) {
      const [run] = await driftRunsOf(t, mariaId);
      expect(run).toMatchObject({ status: 'succeeded', result: { drift: false, baseline_created: true } });
    }
    for (const id of notChecked) {
      expect(await driftRunsOf(t, id)).toEqual([]);
      expect(await t.store.db.selectFrom('snapshots').where('connection_id', '=', id).execute()).toEqual([]);
    }
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'drift check of a connection failed' }),
    );
  });

  it('re-reads the plan of each connection it checks: a downgrade since the list is a failed run', async () => {
    const connection = await t.store.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', ordersId)
      .executeTakeFirstOrThrow();
    await expect(
      createDriftChecker({
        ...t.composition,
        alerts: { enqueue: async () => {} },
      }).check(connection, DRIFT_CHECK_ACTOR, { plan: 'pro' }),
    ).rejects.toMatchObject({
      code: 'forbidden',
      detail: 'Drift detection requires the Enterprise plan',
    });
    const runs = await driftRunsOf(t, ordersId);
    expect(runs.at(-1)).toMatchObject({
      status: 'failed',
      error: 'Drift detection requires the Enterprise plan',
    });
  });

  it('checks at most N connections at a time, all of them, whatever fails', async () => {
    let running = 0;
    let most = 0;
    const seen: string[] = [];
    const pass = createDriftPass({
      db: t.store.db,
      checker: {
        async check(connection) {
          running += 1;
          most = Math.max(most, running);
          const first = seen.push(connection.id) === 1;
          await sleep(50);
          running -= 1;
          if (first) throw new Error('boom');
          return {
            drift: false,
            report: null,
            snapshot: {} as never,
            newReport: false,
            baselineCreated: false,
          };
        },
      },
      alerts: { enqueue: async () => {} },
      concurrency: 2,
      logger: recordingLogger(),
      now: t.now,
    });
    const result = await pass();
    expect(most).toBe(2);
    expect(seen).toHaveLength(result.connections);
    expect(result).toMatchObject({
      checked: result.connections - 1,
      failed: 1,
      errors: [{ error: 'Error: boom' }],
    });
  });

  it('keeps the alert job retried with back-off', async () => {
    const queue = await t.jobs!.boss.getQueue(DRIFT_ALERT_JOB);
    expect({
      retryLimit: queue?.retryLimit,
      retryBackoff: queue?.retryBackoff,
      policy: queue?.policy,
    }).toEqual({
      retryLimit: 6,
      retryBackoff: true,
      policy: 'standard',
    });
  });
});

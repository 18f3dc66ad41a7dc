// Drift detection end to end on the real PostgreSQL and MariaDB test servers: the first visit makes
// the baseline, out-of-band DDL gives a report with exactly the severities of docs/contract.md §6, the same drift
// is never filed twice, acknowledging moves the baseline, the badges follow, and the shadow objects
// of online schema change tools and this service's backups raise nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { loadPostgresSql } from '../../../test/support/corpus.ts';
import { createTestPgDatabase } from '../../../test/support/databases.ts';
import { type TargetEngine, targetEngines } from '../../../test/support/engines.ts';
import { freePort } from '../../../test/support/targets.ts';
import { updateOrgPlan } from '../billing/billing.repo.ts';

const API = '/api/v1';
const REPORT_FIELDS = [
  'acknowledged_at',
  'acknowledged_by',
  'baseline_snapshot_id',
  'comment',
  'connection_id',
  'created_at',
  'current_snapshot_id',
  'diff',
  'id',
  'project_id',
  'severity',
  'status',
  'summary',
];

const engines = await targetEngines('drift (drift.test.ts)');

interface Report {
  id: string;
  severity: string;
  summary: Record<string, number>;
  diff: {
    tables_added: { table: string; severity: string }[];
    tables_removed: { table: string; severity: string }[];
    tables_modified: {
      table: string;
      severity: string;
      changes: { kind: string; object: string; severity: string }[];
    }[];
  };
}

/** Every change of a report as `[table, kind, object, severity]`. */
function changesOf(report: Report): string[][] {
  return [
    ...report.diff.tables_removed.map((t) => [t.table, 'table_removed', t.table, t.severity]),
    ...report.diff.tables_added.map((t) => [t.table, 'table_added', t.table, t.severity]),
    ...report.diff.tables_modified.flatMap((t) =>
      t.changes.map((c) => [t.table, c.kind, c.object, c.severity]),
    ),
  ];
}

interface Engine extends TargetEngine {
  /** How the engine names a table in a diff. */
  table(name: string): string;
  setup: string;
  /** Out-of-band DDL: drop column, alter type, add column, add index, drop table. */
  drift: string;
  /** The shadow objects of gh-ost, pt-online-schema-change, REINDEX CONCURRENTLY, and our backups. */
  leftovers: string;
}

const ENGINES: Engine[] = [
  {
    ...engines.postgresql,
    table: (name) => `public.${name}`,
    setup:
      'create table people (id bigint primary key, name text not null, nickname text, score integer, ' +
      "status varchar(20) default 'new'); create index people_name on people (name); " +
      'create table audit_trail (id bigint primary key, note text);',
    drift:
      'alter table people drop column nickname; alter table people alter column score type bigint; ' +
      'alter table people add column email text; create index people_email on people (email); ' +
      'drop table audit_trail;',
    leftovers:
      'create table _people_gho (like people); create table _people_ghc (id bigint, hint text); ' +
      'create table _people_new (like people including all); create table _people_old (id bigint); ' +
      'create index people_name_ccnew on people (name); ' +
      'create schema dbops_backup; create table dbops_backup.patch_0001_people (like people); ' +
      'create table _dbops_bak_people_1 (id bigint);',
  },
  {
    ...engines.mysql,
    table: (name) => name,
    setup:
      'create table people (id int primary key, name varchar(100) not null, nickname varchar(40), ' +
      "score int, status varchar(20) default 'new'); create index people_name on people (name); " +
      'create table audit_trail (id int primary key, note varchar(200));',
    drift:
      'alter table people drop column nickname; alter table people modify score bigint; ' +
      'alter table people add column email varchar(200); create index people_email on people (email); ' +
      'drop table audit_trail;',
    leftovers:
      'create table _people_gho like people; create table _people_ghc (id int, hint text); ' +
      'create table _people_del (id int); create table _people_new like people; ' +
      'create table _people_old (id int); create table _dbops_bak_people_1 (id int); ' +
      'create trigger pt_osc_app_people_ins after insert on people for each row ' +
      'replace into _people_new (id, name) values (NEW.id, NEW.name);',
  },
];

describe('drift detection', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;

  beforeAll(async () => {
    t = await createTestApp({ targets: { connectTimeoutMs: 3_000 } });
    const acme = await t.createOrg('Acme');
    owner = acme.owner;
    await updateOrgPlan(
      t.store.db,
      acme.orgId,
      { plan: 'enterprise', rate_limit_per_minute: null, rate_limit_per_hour: null },
      new Date(),
    );
    projectId = (await owner.post(`${API}/projects`, { name: 'Drift' })).body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function connect(url: string, overrides: Record<string, unknown> = {}): Promise<string> {
    const created = await owner.post(`${API}/connections`, connectionBody(projectId, url, overrides));
    expect(created.status).toBe(201);
    expect(created.body.drift_status).toBe('none');
    return created.body.id;
  }

  it('answers 502 on a first visit to a target that is down, and makes no baseline', async () => {
    const id = await connect(`postgres://app@127.0.0.1:${await freePort()}/app`, { name: 'Down' });
    const response = await owner.get(`${API}/connections/${id}/drift`);
    expect(response.status).toBe(502);
    expect(response.body.detail).toMatch(/^Connection "Down" failed: The server is unreachable/);
    const check = await owner.post(`${API}/connections/${id}/drift/check`);
    expect(check.status).toBe(502);
    const snapshots = await t.store.db.selectFrom('snapshots').where('connection_id', '=', id).execute();
    expect(snapshots).toEqual([]);
    // The failed check is a failed drift_check run, with the classified cause.
    const runs = await owner.get(`${API}/runs?kind=drift_check&project_id=${projectId}`);
    const run = runs.body.items.find((r: { subject_id: string }) => r.subject_id === id);
    expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/unreachable/) });
  });

  for (const engine of ENGINES) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let database: { url: string; drop(): Promise<void> };
      let cid: string;
      beforeAll(async () => {
        database = await engine.create();
        await engine.load(database.url, engine.setup);
        cid = await connect(database.url, { name: `${engine.name} app` });
      });
      afterAll(async () => {
        await database?.drop();
      });

      it('makes the baseline on the first visit, and keeps it', async () => {
        const first = await owner.get(`${API}/connections/${cid}/drift`);
        expect(first.status).toBe(200);
        expect(first.body).toMatchObject({ latest_report: null, open_reports: 0 });
        expect(first.body.baseline).toMatchObject({ connection_id: cid, is_baseline: true });
        expect(first.body.baseline.schema_json.tables.map((x: { name: string }) => x.name)).toEqual([
          'audit_trail',
          'people',
        ]);
        const again = await owner.get(`${API}/connections/${cid}/drift`);
        expect(again.body.baseline.id).toBe(first.body.baseline.id);

        const check = await owner.post(`${API}/connections/${cid}/drift/check`);
        expect(check.status).toBe(200);
        expect(check.body).toMatchObject({ drift: false, report: null });
        expect(check.body.snapshot).toMatchObject({
          is_baseline: false,
          schema_hash: first.body.baseline.schema_hash,
        });
        // A check is heavy (docs/contract.md §4).
        expect(Number(check.headers['x-ratelimit-remaining'])).toBe(
          Number(check.headers['x-ratelimit-limit']) - 10,
        );
      });

      it('reports out-of-band DDL with exactly the severities of docs/contract.md §6, once', async () => {
        const baseline = (await owner.get(`${API}/connections/${cid}/drift`)).body.baseline;
        await engine.load(database.url, engine.drift);
        const alertsBefore = t.alertsEnqueued.length;

        const check = await owner.post(`${API}/connections/${cid}/drift/check`);
        expect(check.status).toBe(200);
        expect(check.body.drift).toBe(true);
        const report = check.body.report;
        expect(Object.keys(report).sort()).toEqual(REPORT_FIELDS);
        expect(report).toMatchObject({
          project_id: projectId,
          connection_id: cid,
          baseline_snapshot_id: baseline.id,
          current_snapshot_id: check.body.snapshot.id,
          status: 'pending',
          severity: 'critical',
          summary: { critical: 2, moderate: 1, minor: 2 },
          acknowledged_at: null,
          acknowledged_by: null,
          comment: null,
        });
        const people = engine.table('people');
        expect(changesOf(report)).toEqual([
          [engine.table('audit_trail'), 'table_removed', engine.table('audit_trail'), 'critical'],
          [people, 'column_removed', 'nickname', 'critical'],
          [people, 'column_type_changed', 'score', 'moderate'],
          [people, 'column_added', 'email', 'minor'],
          [people, 'index_added', 'people_email', 'minor'],
        ]);
        expect(report.diff.tables_modified[0]).toMatchObject({ table: people, severity: 'critical' });
        expect(t.alertsEnqueued.slice(alertsBefore)).toEqual([report.id]);

        // The same schema again: the pending report is the answer, nothing new is filed or sent.
        const again = await owner.post(`${API}/connections/${cid}/drift/check`);
        expect(again.body).toMatchObject({ drift: true, report: { id: report.id } });
        expect(again.body.snapshot.id).not.toBe(check.body.snapshot.id);
        expect(t.alertsEnqueued.slice(alertsBefore)).toEqual([report.id]);
        const listed = await owner.get(`${API}/drifts?connection_id=${cid}`);
        expect(listed.body).toMatchObject({ total: 1, items: [{ id: report.id }] });
        expect((await owner.get(`${API}/drifts/${report.id}`)).body).toEqual(report);

        const overview = await owner.get(`${API}/connections/${cid}/drift`);
        expect(overview.body).toMatchObject({
          baseline: { id: baseline.id },
          latest_report: { id: report.id },
          open_reports: 1,
        });
      });

      it('shows the drift on the connection and project badges', async () => {
        expect((await owner.get(`${API}/connections/${cid}`)).body.drift_status).toBe('pending');
        const connections = await owner.get(`${API}/connections?project_id=${projectId}`);
        const row = connections.body.items.find((c: { id: string }) => c.id === cid);
        expect(row.drift_status).toBe('pending');
        const project = await owner.get(`${API}/projects/${projectId}`);
        expect(project.body.open_drift_reports).toBe(1);
        const projects = await owner.get(`${API}/projects`);
        expect(projects.body.items.find((p: { id: string }) => p.id === projectId).open_drift_reports).toBe(
          1,
        );
      });

      it('acknowledges: the current snapshot becomes the baseline, twice is 409, then no drift', async () => {
        const [pending] = (await owner.get(`${API}/drifts?connection_id=${cid}&status=pending`)).body.items;
        const acknowledged = await owner.post(`${API}/drifts/${pending.id}/acknowledge`, {
          comment: 'applied by the DBA during the incident',
        });
        expect(acknowledged.status).toBe(200);
        expect(acknowledged.body).toMatchObject({
          id: pending.id,
          status: 'acknowledged',
          acknowledged_by: owner.user.id,
          acknowledged_at: expect.stringMatching(/Z$/),
          comment: 'applied by the DBA during the incident',
        });
        const baseline = await owner.get(`${API}/snapshots/${pending.current_snapshot_id}`);
        expect(baseline.body.is_baseline).toBe(true);
        expect((await owner.get(`${API}/snapshots/${pending.baseline_snapshot_id}`)).body.is_baseline).toBe(
          false,
        );

        const twice = await owner.post(`${API}/drifts/${pending.id}/acknowledge`);
        expect(twice.status).toBe(409);
        expect(twice.body).toEqual({ detail: 'The drift report is already acknowledged' });

        const check = await owner.post(`${API}/connections/${cid}/drift/check`);
        expect(check.body).toMatchObject({ drift: false, report: null });
        expect(check.body.snapshot.schema_hash).toBe(baseline.body.schema_hash);
        expect((await owner.get(`${API}/connections/${cid}`)).body.drift_status).toBe('none');
        const overview = (await owner.get(`${API}/connections/${cid}/drift`)).body;
        expect(overview).toMatchObject({ open_reports: 0, latest_report: { status: 'acknowledged' } });
        const audit = await owner.get(`${API}/audit?action=drift.acknowledge&project_id=${projectId}`);
        expect(audit.body.items[0]).toMatchObject({ target_id: pending.id, details: { connection_id: cid } });
      });

      it("raises nothing for online schema change leftovers and this service's backups", async () => {
        await engine.load(database.url, engine.leftovers);
        const check = await owner.post(`${API}/connections/${cid}/drift/check`);
        expect(check.status).toBe(200);
        expect(check.body).toMatchObject({ drift: false, report: null });
        const names = check.body.snapshot.schema_json.tables.map((x: { name: string }) => x.name);
        expect(names).toEqual(['people']);
      });

      it('records every check as a finished drift_check run', async () => {
        const runs = await owner.get(`${API}/runs?kind=drift_check&project_id=${projectId}&page_size=100`);
        const mine = runs.body.items.filter((r: { subject_id: string }) => r.subject_id === cid);
        expect(mine.length).toBe(5);
        for (const run of mine) {
          expect(run).toMatchObject({
            kind: 'drift_check',
            status: 'succeeded',
            progress: { done: 1, total: 1, unit: 'connections' },
            started_at: expect.any(String),
            finished_at: expect.any(String),
            error: null,
          });
        }
        expect(mine.filter((r: { result: { new_report: boolean } }) => r.result.new_report)).toHaveLength(1);
      });
    });
  }

  describe('on PostgreSQL, reformatted defaults', { skip: !engines.postgresql.up }, () => {
    it('are reported as cosmetic, counted nowhere and never alerted', async () => {
      const database = (await createTestPgDatabase())!;
      try {
        await loadPostgresSql(
          database.url,
          'create table jobs (id int primary key, due timestamp default now())',
        );
        const cid = await connect(database.url);
        expect((await owner.get(`${API}/connections/${cid}/drift`)).status).toBe(200);
        // The same default with the cast the column applies anyway, which PostgreSQL prints as given.
        await loadPostgresSql(database.url, 'alter table jobs alter column due set default now()::timestamp');
        const alertsBefore = t.alertsEnqueued.length;
        const check = await owner.post(`${API}/connections/${cid}/drift/check`);
        expect(check.body).toMatchObject({
          drift: true,
          report: { severity: 'cosmetic', summary: { critical: 0, moderate: 0, minor: 0 } },
        });
        expect(changesOf(check.body.report)).toEqual([
          ['public.jobs', 'column_default_reformatted', 'due', 'cosmetic'],
        ]);
        expect(t.alertsEnqueued.length).toBe(alertsBefore);
        const row = await t.store.db
          .selectFrom('drift_reports')
          .select('alert_state')
          .where('id', '=', check.body.report.id)
          .executeTakeFirstOrThrow();
        expect(row.alert_state).toBe('none');
      } finally {
        await database.drop();
      }
    });
  });
});

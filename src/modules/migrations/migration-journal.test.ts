// The journal of a MySQL migration run (migration-journal.ts) on the real MariaDB test server:
// before each statement is sent, the run's result says which ended, which one runs (with its
// server session) and which never started. Statements are held by table locks of the test, so
// the journal is read while each one waits. Then the settling of an interrupted apply
// (migration-interrupted.ts), on a run left `running` by a process that is gone: the statement in
// flight, still waiting on the target, is ended and classified not applied; one that finished is
// classified applied; and compare + apply again finishes the work.
import { randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';
import type { Run } from '../../store/tables.ts';
import { claimRun, failInterruptedRuns, insertRun, setRunningResult } from '../runs/runs.repo.ts';
import { journalAt } from './migration-journal.ts';
import { findMigrationById, updateMigration } from './migrations.repo.ts';

const API = '/api/v1';
const { mysql: engine } = await targetEngines('MySQL migration journal (migration-journal.test.ts)');

const SOURCE =
  'create table a (id int primary key, n bigint not null); ' +
  'create table b (id int primary key, m bigint not null); ' +
  'create table c (id int primary key, k bigint not null);';
const TARGET =
  'create table a (id int primary key, n int not null); ' +
  'create table b (id int primary key, m int not null); ' +
  'create table c (id int primary key, k int not null); ' +
  'insert into a values (1, 1); insert into b values (1, 1); insert into c values (1, 1);';

describe.skipIf(!engine.up)('the journal of a MySQL migration run', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  let orgId: string;
  let sourceId: string;
  const databases: { drop(): Promise<void> }[] = [];
  const sessions: mysql.Connection[] = [];

  beforeAll(async () => {
    ({ t, owner, projectId, orgId } = await createWorkerProject({ org: 'Journal', project: 'Journaled' }));
    const source = await engine.create();
    databases.push(source);
    await engine.load(source.url, SOURCE);
    sourceId = (await owner.post(`${API}/connections`, connectionBody(projectId, source.url))).body.id;
  });
  afterAll(async () => {
    for (const session of sessions) await session.end().catch(() => {});
    await closeSuite(t, databases);
  });

  /** A fresh target and its compared migration (one ALTER per table: a, b, c). */
  async function compared() {
    const target = await engine.create();
    databases.push(target);
    await engine.load(target.url, TARGET);
    const targetId = (await owner.post(`${API}/connections`, connectionBody(projectId, target.url))).body.id;
    const compare = () =>
      owner.post(`${API}/projects/${projectId}/migrations/compare`, {
        source_connection_id: sourceId,
        target_connection_id: targetId,
      });
    const migration = await compare();
    expect(migration.status, JSON.stringify(migration.body)).toBe(201);
    expect(migration.body.statements.map((s: { sql: string }) => s.sql.slice(0, 14))).toEqual([
      'ALTER TABLE `a',
      'ALTER TABLE `b',
      'ALTER TABLE `c',
    ]);
    return { url: target.url, migration: migration.body, compare };
  }
  const session = async (url: string) => {
    const connection = await mysql.createConnection({ uri: url });
    sessions.push(connection);
    return connection;
  };
  /** The session name the apply journals (mysql.sessions.ts), for a connection of the test. */
  const sessionName = async (connection: mysql.Connection) => {
    const [rows] = await connection.query(
      "select concat(connection_id(), '@', unix_timestamp() - variable_value) as session from information_schema.global_status where variable_name = 'UPTIME'",
    );
    return String((rows as { session: string }[])[0]!.session);
  };
  const columnType = async (url: string, table: string) =>
    (
      await engine.query(
        url,
        `select data_type from information_schema.columns where table_schema = database() and table_name = '${table}' and column_name <> 'id'`,
      )
    )[0]?.data_type;
  async function journalUntil(runId: string, index: number) {
    const deadline = Date.now() + 4_000;
    for (;;) {
      const run = (await owner.get(`${API}/runs/${runId}`)).body;
      if (run.result?.in_flight?.index === index) return run;
      if (Date.now() > deadline) throw new Error(`journal stayed ${JSON.stringify(run.result)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("records each statement's start before sending it, with the statements that ended", async () => {
    const { url, migration } = await compared();
    // The ALTERs of b and c wait for these locks (less than the apply's 5 s lock timeout).
    const holdB = await session(url);
    const holdC = await session(url);
    await holdB.query('LOCK TABLES b WRITE');
    await holdC.query('LOCK TABLES c WRITE');
    const started = await owner.post(`${API}/migrations/${migration.id}/apply`, {});
    expect(started.status).toBe(202);

    const atB = await journalUntil(started.body.id, 1);
    expect(atB.status).toBe('running');
    expect(atB.result).toMatchObject({ applied: [0], not_applied: [2], failed: null, rolled_back: false });
    expect(atB.result.in_flight).toMatchObject({ index: 1, sql: migration.statements[1].sql });
    expect(atB.result.in_flight.session).toMatch(/^\d+@\d+$/);
    expect(atB.result.in_flight.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Statement 0 took effect; 1 has not.
    expect(await columnType(url, 'a')).toBe('bigint');
    expect(await columnType(url, 'b')).toBe('int');

    await holdB.query('UNLOCK TABLES');
    const atC = await journalUntil(started.body.id, 2);
    expect(atC.result).toMatchObject({ applied: [0, 1], not_applied: [], in_flight: { index: 2 } });
    // Same apply, same server session.
    expect(atC.result.in_flight.session).toBe(atB.result.in_flight.session);

    await holdC.query('UNLOCK TABLES');
    const done = await waitForRun(owner, started.body.id, ['succeeded', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect(done.result).toMatchObject({ applied: [0, 1, 2], not_applied: [], failed: null });
    expect(done.result.in_flight).toBeUndefined();
  });

  /**
   * What a process killed during statement `index` leaves: the migration `applying` (or
   * `rolling_back`), its run
   * `running` with the journal (naming `server` as the session running the statement), failed
   * by the sweep as interrupted, then settled.
   */
  async function interruptedAt(
    migration: { id: string; statements: { sql: string }[] },
    index: number,
    server: string,
    kind: 'migration_apply' | 'migration_rollback' = 'migration_apply',
  ) {
    const running = kind === 'migration_rollback' ? 'rolling_back' : 'applying';
    await updateMigration(t.store.db, migration.id, { status: running, updated_at: new Date() });
    const worker = `gone-${randomUUID()}`;
    const id = randomUUID();
    await insertRun(t.store.db, {
      id,
      org_id: orgId,
      project_id: projectId,
      kind,
      subject_id: migration.id,
      status: 'queued',
      approval_id: null,
      progress_total: migration.statements.length,
      progress_unit: 'statements',
      params: { migration_id: migration.id },
      created_by: null,
      created_at: new Date(),
    });
    await claimRun(t.store.db, id, worker, new Date());
    await setRunningResult(t.store.db, id, journalAt(migration.statements, index, server, new Date()));
    expect(await failInterruptedRuns(t.store.db, new Date(0), new Date(), [worker])).toEqual([id]);
    const run = (await t.store.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()) as Run;
    await t.composition.runKinds.get(kind)?.interrupted?.(run);
    return (await owner.get(`${API}/runs/${id}`)).body;
  }

  it('settles an interrupted apply: the statement still running on the target is ended, not applied', async () => {
    const { url, migration, compare } = await compared();
    const lock = await session(url);
    const dead = await session(url);
    await engine.load(url, migration.statements[0].sql);
    // The dead process's statement 1, still waiting on the target.
    await lock.query('LOCK TABLES b WRITE');
    const name = await sessionName(dead);
    const running = dead.query(migration.statements[1].sql).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const run = await interruptedAt(migration, 1, name);
    // Killed by the settling (the lock is still held): its connection is gone.
    expect(await running).toMatchObject({ code: expect.stringMatching(/PROTOCOL_CONNECTION_LOST|ER_/) });
    await lock.query('UNLOCK TABLES');
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/interrupted/);
    expect(run.result).toMatchObject({
      applied: [0],
      not_applied: [1, 2],
      failed: null,
      rolled_back: false,
      in_flight: { index: 1, applied: false },
    });
    expect(await columnType(url, 'b')).toBe('int');
    expect((await owner.get(`${API}/migrations/${migration.id}`)).body.status).toBe('failed');

    // The retry the contract offers: compare again, apply what is left.
    const again = await compare();
    expect(again.body.statements).toHaveLength(2);
    const applied = await owner.post(`${API}/migrations/${again.body.id}/apply`, {});
    const done = await waitForRun(owner, applied.body.id, ['succeeded', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect([await columnType(url, 'b'), await columnType(url, 'c')]).toEqual(['bigint', 'bigint']);
  });

  it('settles an interrupted apply whose statement in flight had committed: applied', async () => {
    const { url, migration } = await compared();
    const dead = await session(url);
    await engine.load(url, migration.statements[0].sql);
    await dead.query(migration.statements[1].sql);
    const run = await interruptedAt(migration, 1, await sessionName(dead));
    expect(run.result).toMatchObject({ applied: [0, 1], not_applied: [2], in_flight: { applied: true } });
    expect((await owner.get(`${API}/migrations/${migration.id}`)).body.status).toBe('failed');

    // Killed during the last statement, which had committed: the migration is applied.
    const last = await compared();
    const other = await session(last.url);
    for (const statement of last.migration.statements) await other.query(statement.sql);
    const whole = await interruptedAt(last.migration, 2, await sessionName(other));
    expect(whole.result).toMatchObject({ applied: [0, 1, 2], not_applied: [] });
    const settled = (await owner.get(`${API}/migrations/${last.migration.id}`)).body;
    expect(settled.status).toBe('applied');
    expect(settled.applied_at).not.toBeNull();
  });

  it('settles an interrupted rollback the same way, from the rollback statements it parses', async () => {
    const { url, migration } = await compared();
    const applied = await owner.post(`${API}/migrations/${migration.id}/apply`, {});
    expect((await waitForRun(owner, applied.body.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const rollback = (await findMigrationById(t.store.db, migration.id))?.rollback ?? [];
    expect(rollback).toHaveLength(3);
    const dead = await session(url);
    // Rollback statements 0 and 1 committed; the process died before it recorded the end of 1.
    await dead.query(rollback[0]!.sql);
    await dead.query(rollback[1]!.sql);
    const run = await interruptedAt(
      { id: migration.id, statements: rollback },
      1,
      await sessionName(dead),
      'migration_rollback',
    );
    expect(run.result).toMatchObject({ applied: [0, 1], not_applied: [2], in_flight: { applied: true } });
    expect((await owner.get(`${API}/migrations/${migration.id}`)).body.status).toBe('failed');

    // Killed in its first statement, which never committed: the migration is still applied.
    const other = await compared();
    const done = await owner.post(`${API}/migrations/${other.migration.id}/apply`, {});
    expect((await waitForRun(owner, done.body.id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const steps = (await findMigrationById(t.store.db, other.migration.id))?.rollback ?? [];
    const untouched = await interruptedAt(
      { id: other.migration.id, statements: steps },
      0,
      await sessionName(await session(other.url)),
      'migration_rollback',
    );
    expect(untouched.result).toMatchObject({
      applied: [],
      not_applied: [0, 1, 2],
      in_flight: { applied: false },
    });
    expect((await owner.get(`${API}/migrations/${other.migration.id}`)).body.status).toBe('applied');
  });
});

// The attacks that worked from outside, on the real PostgreSQL and MariaDB test servers with runs
// worked for real: data changes and calls outside the database in edited (or already stored) SQL,
// a rollback that dropped a column users had written to without asking, backups left behind, a
// lint error that only the web app checked. And the state machine as clients see it:
// `allowed_actions` for an admin, a viewer, a read-only key and after a failed rollback.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { type TargetEngine, targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('migration safety (migration-safety.test.ts)');
const DONE = ['succeeded', 'failed', 'cancelled'];

interface Engine extends TargetEngine {
  /** The attack that worked: a data change, a program run on the server, another server reached. */
  attack: (file: string) => string;
  /** What the 422 names, statement by statement. */
  attackNamed: string[];
  /** A view whose body reads a server file. */
  outsideView: string;
  outsideCall: string;
  /** The schema (database) a connection works in, as SQL. */
  here: string;
}

const ENGINES: Engine[] = [
  {
    ...engines.postgresql,
    attack: (file) =>
      `UPDATE people SET score = 1; COPY (SELECT 1) TO PROGRAM 'touch ${file}'; SELECT dblink_connect('x')`,
    attackNamed: [
      'statement 1 is data change (UPDATE)',
      'statement 2 is COPY',
      'statement 3 is routine call (SELECT …)',
    ],
    outsideView: "CREATE VIEW leak AS SELECT pg_read_file('/etc/passwd') AS secret",
    outsideCall: 'pg_read_file',
    here: 'current_schema()',
  },
  {
    ...engines.mysql,
    attack: (file) =>
      `UPDATE people SET score = 1; SELECT 1 INTO OUTFILE '${file}'; SELECT sys_exec('touch ${file}')`,
    attackNamed: [
      'statement 1 is data change (UPDATE)',
      'statement 2 is … INTO OUTFILE',
      'statement 3 is routine call (SELECT …)',
    ],
    outsideView: "CREATE VIEW leak AS SELECT LOAD_FILE('/etc/passwd') AS secret",
    outsideCall: 'load_file',
    here: 'database()',
  },
];

const SOURCE = 'create table people (id int primary key, name varchar(100) not null, nickname varchar(40));';
const TARGET =
  "create table people (id int primary key, name varchar(100) not null, score int); insert into people values (1, 'Ada', 3);";

describe('migration safety', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, owner, orgId, projectId } = await createWorkerProject({ org: 'Safety', project: 'Migrations' }));
  });
  afterAll(() => closeSuite(t, databases));

  async function database(engine: Engine, sql: string): Promise<string> {
    const created = await engine.create();
    databases.push(created);
    await engine.load(created.url, sql);
    return created.url;
  }

  let counter = 0;
  /** A fresh source and target pair: a migration that drops `score` and adds `nickname`. */
  async function pair(engine: Engine, source = SOURCE, target = TARGET) {
    counter += 1;
    const name = `${engine.dialect} target ${counter}`;
    const connect = async (url: string, connectionName: string) =>
      (await owner.post(`${API}/connections`, connectionBody(projectId, url, { name: connectionName }))).body
        .id as string;
    const targetUrl = await database(engine, target);
    return {
      name,
      targetUrl,
      sourceId: await connect(await database(engine, source), `${engine.dialect} source ${counter}`),
      targetId: await connect(targetUrl, name),
    };
  }

  async function compare(
    engine: Engine,
    extra: Record<string, unknown> = {},
    source?: string,
    target?: string,
  ) {
    const p = await pair(engine, source, target);
    const created = await owner.post(`${API}/projects/${projectId}/migrations/compare`, {
      source_connection_id: p.sourceId,
      target_connection_id: p.targetId,
      ...extra,
    });
    expect(created.status).toBe(201);
    return { ...p, migration: created.body };
  }

  for (const engine of ENGINES) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      it('refuses data changes, programs and other servers in edited SQL with 422 naming each statement', async () => {
        const { migration } = await compare(engine);
        const file = `/tmp/dbops-attack-${engine.dialect}-${process.pid}-${Date.now()}`;
        const edited = await owner.patch(`${API}/migrations/${migration.id}`, {
          generated_sql: engine.attack(file),
        });
        expect(edited.status).toBe(422);
        expect(edited.body.detail[0]).toMatchObject({ loc: ['body', 'generated_sql'], type: 'schema_only' });
        for (const named of engine.attackNamed) expect(edited.body.detail[0].msg).toContain(named);
        const view = await owner.patch(`${API}/migrations/${migration.id}`, {
          generated_sql: engine.outsideView,
        });
        expect(view.status).toBe(422);
        expect(view.body.detail[0].msg).toContain(`statement 1 calls ${engine.outsideCall}`);
        // Nothing was stored: the migration still holds the plan.
        const stored = await owner.get(`${API}/migrations/${migration.id}`);
        expect(stored.body.generated_sql).toBe(migration.generated_sql);
        expect(existsSync(file)).toBe(false);
      });

      it('refuses at apply SQL stored before the rule, and nothing runs on the target', async () => {
        const { migration, name } = await compare(engine);
        const file = `/tmp/dbops-stored-${engine.dialect}-${process.pid}-${Date.now()}`;
        const sql = engine.attack(file);
        await t.store.db
          .updateTable('migrations')
          .set({
            generated_sql: sql,
            statements: JSON.stringify(
              sql.split('; ').map((statement) => ({
                sql: statement,
                kind: 'other',
                object: '',
                destructive: false,
                transactional: true,
                reversible: false,
                facts: [],
                parse_error: null,
              })),
            ),
          })
          .where('id', '=', migration.id)
          .execute();
        const applied = await owner.post(`${API}/migrations/${migration.id}/apply`, {
          confirm_irreversible: true,
          confirmation: name,
        });
        expect(applied.status).toBe(422);
        expect(applied.body.detail[0].type).toBe('schema_only');
        for (const named of engine.attackNamed) expect(applied.body.detail[0].msg).toContain(named);
        expect((await owner.get(`${API}/runs?kind=migration_apply`)).body.items).not.toContainEqual(
          expect.objectContaining({ subject_id: migration.id }),
        );
        expect(existsSync(file)).toBe(false);
      });

      it('accepts the generated SQL with its backups sent back unchanged, and refuses its restore written by hand', async () => {
        const { migration } = await compare(engine, { backup_drops: true });
        expect(migration.rollback_sql).not.toBeNull();
        const resent = await owner.patch(`${API}/migrations/${migration.id}`, {
          generated_sql: migration.generated_sql,
        });
        expect(resent.status).toBe(200);
        expect(resent.body.statements).toEqual(migration.statements);
        expect(resent.body.rollback_sql).toBe(migration.rollback_sql);
        // The rollback's restore, written into the forward SQL by hand, is a data change.
        const restore = migration.rollback_statements.findIndex(
          (s: { kind: string }) => s.kind === 'restore_column',
        );
        expect(restore).toBeGreaterThanOrEqual(0);
        const smuggled = await owner.patch(`${API}/migrations/${migration.id}`, {
          generated_sql: `${migration.generated_sql}\n\n${migration.rollback_statements[restore].sql};`,
        });
        expect(smuggled.status).toBe(422);
        expect(smuggled.body.detail[0].msg).toContain(
          `statement ${migration.statements.length + 1} is data change (UPDATE)`,
        );
      });

      it('guards a rollback that drops a column users wrote to, and drops the backups it restored from', async () => {
        const { migration, name, targetUrl } = await compare(engine, { backup_drops: true });
        const apply = await owner.post(`${API}/migrations/${migration.id}/apply`, {
          confirm_irreversible: true,
          confirmation: name,
        });
        expect(apply.status).toBe(202);
        expect((await waitForRun(owner, apply.body.id, DONE)).status).toBe('succeeded');
        await engine.load(targetUrl, "update people set nickname = 'Countess' where id = 1;");
        const applied = (await owner.get(`${API}/migrations/${migration.id}`)).body;
        expect(applied.backup_tables).toHaveLength(1);

        const refused = await owner.post(`${API}/migrations/${migration.id}/rollback`, {});
        expect(refused.status).toBe(422);
        expect(refused.body.detail[0]).toMatchObject({
          loc: ['body', 'confirmation'],
          type: 'confirmation_required',
        });
        expect(refused.body.detail[0].msg).toMatch(/statement \d+ drops column [\w.]*people\.nickname/);
        const wrongName = await owner.post(`${API}/migrations/${migration.id}/rollback`, {
          confirm_irreversible: true,
          confirmation: 'another name',
        });
        expect(wrongName.status).toBe(422);

        const rolledBack = await owner.post(`${API}/migrations/${migration.id}/rollback`, {
          confirm_irreversible: true,
          confirmation: name,
        });
        expect(rolledBack.status).toBe(202);
        expect((await waitForRun(owner, rolledBack.body.id, DONE)).status).toBe('succeeded');
        const columns = await engine.query(
          targetUrl,
          `select column_name as name from information_schema.columns where table_schema = ${engine.here} and table_name = 'people' order by 1`,
        );
        expect(columns.map((c) => String(c.name))).toEqual(['id', 'name', 'score']);
        expect(await engine.query(targetUrl, 'select score from people')).toEqual([{ score: 3 }]);
        const backups = await engine.query(
          targetUrl,
          `select table_name from information_schema.tables where table_schema = 'dbops_backup' or (table_schema = ${engine.here} and table_name like '\\_dbops\\_bak\\_%')`,
        );
        expect(backups).toEqual([]);
        expect((await owner.get(`${API}/migrations/${migration.id}`)).body).toMatchObject({
          status: 'rolled_back',
          backup_tables: [],
        });
      });

      it('rolls back without a body when nothing is destroyed, and refuses a JSON null body', async () => {
        const withIndex = `${TARGET} create index people_name on people (name);`;
        const { migration } = await compare(engine, {}, withIndex, TARGET);
        expect(migration.statements).toHaveLength(1);
        expect(migration.rollback_statements).toEqual([
          expect.objectContaining({ kind: 'drop_index', destructive: false }),
        ]);
        const apply = await owner.post(`${API}/migrations/${migration.id}/apply`);
        expect(apply.status).toBe(202);
        expect((await waitForRun(owner, apply.body.id, DONE)).status).toBe('succeeded');
        const nullBody = await owner.request('POST', `${API}/migrations/${migration.id}/rollback`, 'null', {
          'content-type': 'application/json',
        });
        expect(nullBody.status).toBe(422);
        expect(nullBody.body.detail[0].loc).toEqual(['body']);
        const rollback = await owner.post(`${API}/migrations/${migration.id}/rollback`);
        expect(rollback.status).toBe(202);
        expect((await waitForRun(owner, rollback.body.id, DONE)).status).toBe('succeeded');
      });

      it('leaves a failed rollback failed, with rollback as the only action', async () => {
        const { migration, name, targetUrl } = await compare(engine, { backup_drops: true });
        const apply = await owner.post(`${API}/migrations/${migration.id}/apply`, {
          confirm_irreversible: true,
          confirmation: name,
        });
        expect((await waitForRun(owner, apply.body.id, DONE)).status).toBe('succeeded');
        // Out of band, the column the rollback drops is gone already: the rollback fails.
        await engine.load(targetUrl, 'alter table people drop column nickname;');
        const rollback = await owner.post(`${API}/migrations/${migration.id}/rollback`, {
          confirm_irreversible: true,
          confirmation: name,
        });
        expect(rollback.status).toBe(202);
        expect((await waitForRun(owner, rollback.body.id, DONE)).status).toBe('failed');
        const failed = (await owner.get(`${API}/migrations/${migration.id}`)).body;
        expect(failed).toMatchObject({ status: 'failed', allowed_actions: ['rollback'] });
        expect(
          (await owner.patch(`${API}/migrations/${migration.id}`, { generated_sql: 'DROP TABLE people' }))
            .status,
        ).toBe(409);
        const again = await owner.post(`${API}/migrations/${migration.id}/apply`, {
          confirm_irreversible: true,
          confirmation: name,
        });
        expect(again.status).toBe(409);
        expect(again.body.detail).toMatch(/its rollback failed/);
      });
    });
  }

  it('lists allowed_actions for the caller: admin, viewer, read-only key', {
    skip: !engines.postgresql.up,
  }, async () => {
    const { migration } = await compare(ENGINES[0]!);
    expect(migration.allowed_actions).toEqual(['edit', 'apply']);
    const viewer = await t.createUser(orgId, 'member');
    const added = await owner.post(`${API}/projects/${projectId}/members`, {
      user_id: viewer.user.id,
      role: 'viewer',
    });
    expect(added.status).toBeLessThan(300);
    expect((await viewer.get(`${API}/migrations/${migration.id}`)).body.allowed_actions).toEqual([]);
    const listed = await viewer.get(`${API}/projects/${projectId}/migrations`);
    expect(
      listed.body.items.every((m: { allowed_actions: string[] }) => m.allowed_actions.length === 0),
    ).toBe(true);
    const key = await t.keyClient(owner, ['read']);
    expect((await key.get(`${API}/migrations/${migration.id}`)).body.allowed_actions).toEqual([]);
    const writer = await t.keyClient(owner, ['write']);
    expect((await writer.get(`${API}/migrations/${migration.id}`)).body.allowed_actions).toEqual([
      'edit',
      'apply',
    ]);
  });
});

// Schema migrations end to end on the real PostgreSQL and MariaDB test servers, with runs worked
// for real: compare two databases, double confirmation, apply (residual diff empty, applied_at
// set), rollback back to the original schema hash, stale compare 409, cross-dialect 422, edit
// re-lints, and who may do what.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { type TargetEngine, targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('migrations (migrations.test.ts)');

interface Engine extends TargetEngine {
  source: string;
  /** The source, with a column dropped, one added and an index missing. */
  target: string;
  /** Out-of-band DDL on the target after a compare. */
  drift: string;
  /** An edit that retypes a column. */
  retype: string;
  /** The backup tables in the database at the moment (the service's own, docs/architecture.md). */
  backups: string;
}

const ENGINES: Engine[] = [
  {
    ...engines.postgresql,
    source:
      'create table people (id bigint primary key, name text not null, nickname text, score integer); ' +
      'create index people_name on people (name);',
    target:
      'create table people (id bigint primary key, name text not null, score integer, email text); ' +
      "insert into people values (1, 'Ada', 3, 'ada@example.com');",
    drift: 'alter table people add column extra integer;',
    retype: 'ALTER TABLE people ALTER COLUMN score TYPE smallint',
    backups: "select table_name as name from information_schema.tables where table_schema = 'dbops_backup'",
  },
  {
    ...engines.mysql,
    source:
      'create table people (id int primary key, name varchar(100) not null, nickname varchar(40), ' +
      'score int); create index people_name on people (name);',
    target:
      'create table people (id int primary key, name varchar(100) not null, score int, ' +
      "email varchar(200)); insert into people values (1, 'Ada', 3, 'ada@example.com');",
    drift: 'alter table people add column extra int;',
    retype: 'ALTER TABLE people MODIFY score smallint',
    backups:
      "select table_name as name from information_schema.tables where table_schema = database() and table_name like '\\_dbops\\_bak\\_%'",
  },
];

describe('schema migrations', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({
      org: 'Acme',
      project: 'Migrations',
    }));
  });
  afterAll(() => closeSuite(t, databases));

  async function database(engine: Engine, sql: string): Promise<{ url: string }> {
    const created = await engine.create();
    databases.push(created);
    await engine.load(created.url, sql);
    return created;
  }

  async function connect(url: string, name: string, project = projectId): Promise<string> {
    const created = await owner.post(`${API}/connections`, connectionBody(project, url, { name }));
    expect(created.status).toBe(201);
    return created.body.id;
  }

  it('refuses a cross-dialect pair with 422', {
    skip: !(engines.postgresql.up && engines.mysql.up),
  }, async () => {
    const pg = await database(ENGINES[0]!, 'create table a (id int);');
    const my = await database(ENGINES[1]!, 'create table a (id int);');
    const response = await owner.post(`${API}/projects/${projectId}/migrations/compare`, {
      source_connection_id: await connect(pg.url, 'cross pg'),
      target_connection_id: await connect(my.url, 'cross my'),
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'target_connection_id']);
  });

  for (const engine of ENGINES) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let sourceId: string;
      let targetId: string;
      let targetUrl: string;
      const targetName = `${engine.name} target`;

      beforeAll(async () => {
        sourceId = await connect((await database(engine, engine.source)).url, `${engine.name} source`);
        targetUrl = (await database(engine, engine.target)).url;
        targetId = await connect(targetUrl, targetName);
      });

      const compare = (extra: Record<string, unknown> = {}) =>
        owner.post(`${API}/projects/${projectId}/migrations/compare`, {
          source_connection_id: sourceId,
          target_connection_id: targetId,
          ...extra,
        });

      it('compares, applies with double confirmation, and rolls back to the original schema', async () => {
        // Without a backup the dropped column cannot come back: no rollback.
        expect((await compare()).body.rollback_sql).toBeNull();
        const created = await compare({ backup_drops: true });
        expect(created.status).toBe(201);
        const migration = created.body;
        expect(migration).toMatchObject({
          project_id: projectId,
          source_connection_id: sourceId,
          target_connection_id: targetId,
          status: 'draft',
          applied_at: null,
        });
        expect(migration.generated_sql).toMatch(/nickname/);
        expect(migration.generated_sql).toMatch(/people_name/);
        expect(migration.statements.some((s: { destructive: boolean }) => s.destructive)).toBe(true);
        expect(migration.lint_warnings.map((w: { rule: string }) => w.rule)).toContain('drop-column');
        expect(migration.rollback_sql).not.toBeNull();

        // The audit log names what was compared by the connection it changes, not by an id.
        const audited = await owner.get(`${API}/audit?project_id=${projectId}&action=migration.compare`);
        const entry = audited.body.items.find((e: { target_id: string }) => e.target_id === migration.id);
        expect(entry.target_label).toBe(`Migration of ${targetName}`);

        const listed = await owner.get(`${API}/projects/${projectId}/migrations`);
        expect(listed.body.items.map((m: { id: string }) => m.id)).toContain(migration.id);
        expect((await owner.post(`${API}/migrations/${migration.id}/rollback`)).status).toBe(409);

        // Dropping `email` needs both confirmations.
        const unconfirmed = await owner.post(`${API}/migrations/${migration.id}/apply`, {});
        expect(unconfirmed.status).toBe(422);
        expect(unconfirmed.body.detail[0].msg).toMatch(/drops column .*email/);
        const wrongName = await owner.post(`${API}/migrations/${migration.id}/apply`, {
          confirm_irreversible: true,
          confirmation: 'not the name',
        });
        expect(wrongName.status).toBe(422);

        const applied = await owner.post(`${API}/migrations/${migration.id}/apply`, {
          confirm_irreversible: true,
          confirmation: targetName,
        });
        expect(applied.status).toBe(202);
        expect(applied.body).toMatchObject({
          kind: 'migration_apply',
          subject_id: migration.id,
          status: 'queued',
        });
        const run = await waitForRun(owner, applied.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(run.error).toBeNull();
        expect(run.status).toBe('succeeded');
        expect(run.result).toMatchObject({ residual_empty: true, not_applied: [], failed: null });
        expect(run.result.schema_hash).toBe(migration.source_schema_hash);

        const after = await owner.get(`${API}/migrations/${migration.id}`);
        expect(after.body.status).toBe('applied');
        expect(after.body.applied_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        expect(after.body.allowed_actions).toEqual(['rollback']);
        // The backup of `email` is in the target, and listed.
        const backups = (await engine.query(targetUrl, engine.backups)).map((row) => String(row.name));
        expect(backups).toHaveLength(1);
        expect(after.body.backup_tables).toEqual([
          { name: expect.stringContaining(backups[0]!), kept_until: null },
        ]);
        expect((await owner.post(`${API}/migrations/${migration.id}/apply`, {})).status).toBe(409);

        // The rollback drops `nickname`, which apply added: its data would go with it.
        const drops = after.body.rollback_statements.findIndex((s: { sql: string }) =>
          /nickname/.test(s.sql),
        );
        expect(after.body.rollback_statements[drops]).toMatchObject({ destructive: true });
        const unconfirmedRollback = await owner.post(`${API}/migrations/${migration.id}/rollback`);
        expect(unconfirmedRollback.status).toBe(422);
        expect(unconfirmedRollback.body.detail[0].msg).toContain(`statement ${drops + 1} drops column`);
        expect(unconfirmedRollback.body.detail[0].msg).toMatch(/nickname/);
        const rolledBack = await owner.post(`${API}/migrations/${migration.id}/rollback`, {
          confirm_irreversible: true,
          confirmation: targetName,
        });
        expect(rolledBack.status).toBe(202);
        const back = await waitForRun(owner, rolledBack.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(back.error).toBeNull();
        expect(back.result).toMatchObject({ restored: true, schema_hash: migration.target_schema_hash });
        const final = await owner.get(`${API}/migrations/${migration.id}`);
        expect(final.body).toMatchObject({ status: 'rolled_back', backup_tables: [], allowed_actions: [] });
        // The rows of `email` came back, and the backup that held them is gone.
        expect(await engine.query(targetUrl, 'select email from people')).toEqual([
          { email: 'ada@example.com' },
        ]);
        expect(await engine.query(targetUrl, engine.backups)).toEqual([]);
      });

      it('fails an online apply whose concurrent index build fails (division by zero) after the commit, dropping the invalid index', {
        skip: engine.dialect !== 'postgresql',
      }, async () => {
        const source = await connect(
          (
            await database(
              engine,
              'create table tags (id int, name text); create index tags_name on tags ((100 / id));',
            )
          ).url,
          'online source',
        );
        const target = await connect(
          (
            await database(
              engine,
              "create table tags (id int, name text); insert into tags values (1, 'a'), (0, 'b');",
            )
          ).url,
          'online target',
        );
        const body = { source_connection_id: source, target_connection_id: target, online: true };
        const created = await owner.post(`${API}/projects/${projectId}/migrations/compare`, body);
        expect(created.status).toBe(201);
        const index = created.body.statements.findIndex((s: { sql: string }) => /tags_name/.test(s.sql));
        expect(created.body.statements[index]).toMatchObject({ transactional: false });
        const applied = await owner.post(`${API}/migrations/${created.body.id}/apply`, {});
        expect(applied.status).toBe(202);
        const run = await waitForRun(owner, applied.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(run.status).toBe('failed');
        expect(run.result.non_transactional).toMatchObject({
          failed: index,
          not_applied: [index],
          dropped_invalid_indexes: ['tags_name'],
        });
        expect(run.result.rolled_back).toBe(false);
        const after = await owner.get(`${API}/migrations/${created.body.id}`);
        expect(after.body).toMatchObject({ status: 'failed', applied_at: null });
        // Nothing invalid stays behind: a new compare still plans the index.
        const again = await owner.post(`${API}/projects/${projectId}/migrations/compare`, body);
        expect(again.body.generated_sql).toMatch(/tags_name/);
      });

      it('plans an online migration with the index built concurrently, outside the transaction', {
        skip: engine.dialect !== 'postgresql',
      }, async () => {
        const offline = await compare();
        const online = await compare({ online: true });
        expect(online.status).toBe(201);
        const index = (body: { statements: { sql: string; transactional: boolean }[] }) =>
          body.statements.find((s) => /people_name/.test(s.sql));
        expect(index(offline.body)).toMatchObject({ transactional: true });
        expect(index(online.body)!.sql).toMatch(/CREATE INDEX CONCURRENTLY/i);
        expect(index(online.body)!.transactional).toBe(false);
      });

      it('re-lints edited SQL, refuses SQL that does not parse, and refuses a stale target with 409', async () => {
        const migration = (await compare()).body;
        const unparseable = await owner.patch(`${API}/migrations/${migration.id}`, {
          generated_sql: `${engine.retype};\n\nTHIS IS NOT SQL;`,
        });
        expect(unparseable.status).toBe(422);
        expect(unparseable.body.detail[0]).toMatchObject({
          loc: ['body', 'generated_sql'],
          type: 'schema_only',
        });
        expect(unparseable.body.detail[0].msg).toContain('statement 2 is unparseable');
        const edited = await owner.patch(`${API}/migrations/${migration.id}`, {
          generated_sql: `${engine.retype};`,
        });
        expect(edited.status).toBe(200);
        const rules = edited.body.lint_warnings.map((w: { rule: string }) => w.rule);
        expect(rules).toContain('alter-column-type');
        expect(edited.body.statements).toHaveLength(1);

        // Narrowing a populated column is a lint error: the server refuses apply, whoever asks.
        expect(edited.body.allowed_actions).toEqual(['edit']);
        const blocked = await owner.post(`${API}/migrations/${migration.id}/apply`, {});
        expect(blocked.status).toBe(409);
        expect(blocked.body.detail).toMatch(/^Lint errors block apply/);
        expect(blocked.body.detail).toContain('alter-column-type at statement 1');

        const harmless = await owner.patch(`${API}/migrations/${migration.id}`, {
          generated_sql: 'CREATE INDEX people_score ON people (score);',
        });
        expect(harmless.status).toBe(200);
        expect(harmless.body.allowed_actions).toEqual(['edit', 'apply']);

        await engine.load(targetUrl, engine.drift);
        const stale = await owner.post(`${API}/migrations/${migration.id}/apply`, {});
        expect(stale.status).toBe(409);
        expect(stale.body.detail).toMatch(/changed since the compare/);
      });
    });
  }

  describe('authorization', { skip: !engines.postgresql.up }, () => {
    let migrationId: string;
    beforeAll(async () => {
      const engine = ENGINES[0]!;
      const response = await owner.post(`${API}/projects/${projectId}/migrations/compare`, {
        source_connection_id: await connect((await database(engine, engine.source)).url, 'auth source'),
        target_connection_id: await connect((await database(engine, engine.target)).url, 'auth target'),
      });
      expect(response.status).toBe(201);
      migrationId = response.body.id;
    });

    it('answers 401 without credentials', async () => {
      expect((await t.anonymous.get(`${API}/migrations/${migrationId}`)).status).toBe(401);
      expect((await t.anonymous.post(`${API}/migrations/${migrationId}/apply`, {})).status).toBe(401);
    });

    it('lets a project viewer read but not compare, edit or apply (403)', async () => {
      const { orgId } = await t.store.db
        .selectFrom('projects')
        .select('org_id as orgId')
        .where('id', '=', projectId)
        .executeTakeFirstOrThrow();
      const viewer = await t.createUser(orgId, 'member');
      const added = await owner.post(`${API}/projects/${projectId}/members`, {
        user_id: viewer.user.id,
        role: 'viewer',
      });
      expect(added.status).toBeLessThan(300);
      expect((await viewer.get(`${API}/migrations/${migrationId}`)).status).toBe(200);
      expect((await viewer.get(`${API}/projects/${projectId}/migrations`)).status).toBe(200);
      expect(
        (await viewer.patch(`${API}/migrations/${migrationId}`, { generated_sql: 'select 1' })).status,
      ).toBe(403);
      expect((await viewer.post(`${API}/migrations/${migrationId}/apply`, {})).status).toBe(403);
      expect((await viewer.post(`${API}/migrations/${migrationId}/rollback`)).status).toBe(403);
      // A read-only key of the owner cannot write either.
      const key = await t.keyClient(owner, ['read']);
      expect((await key.post(`${API}/migrations/${migrationId}/apply`, {})).status).toBe(403);
    });

    it('answers 404 to another organization', async () => {
      const other = (await t.createOrg('Other')).owner;
      const response = await other.get(`${API}/migrations/${migrationId}`);
      expect(response.status).toBe(404);
      expect(response.body.detail).toBe('Migration not found');
      expect((await other.post(`${API}/migrations/${migrationId}/apply`, {})).status).toBe(404);
      expect((await other.get(`${API}/projects/${projectId}/migrations`)).status).toBe(404);
    });
  });
});

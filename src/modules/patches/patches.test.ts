// Data patches end to end on the real PostgreSQL and MariaDB test servers: saving DML parsed into
// statements, refusing DDL, hidden statements and full-table changes with 422 naming the
// statement, list, read, edit, delete, and who may do what.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';
import { dialects } from '../../dialects/index.ts';
import { backupTable } from './patch-images.ts';

const API = '/api/v1';
const engines = await targetEngines('patches (patches.test.ts)');

const ENGINES = [
  {
    ...engines.postgresql,
    checksum: "select md5(string_agg(p::text, ',' order by id)) as sum, count(*)::int as n from people p",
    schema:
      'create table people (id bigint primary key, name text not null, score integer); ' +
      "insert into people values (1, 'Ada', 3), (2, 'Bob', 5), (3, 'Cy', 7);",
  },
  {
    ...engines.mysql,
    checksum:
      "select md5(group_concat(concat_ws(':', id, name, coalesce(score, 'null')) order by id)) as sum, count(*) as n from people",
    schema:
      'create table people (id int primary key, name varchar(100) not null, score int); ' +
      "insert into people values (1, 'Ada', 3), (2, 'Bob', 5), (3, 'Cy', 7);",
  },
];

describe('data patches', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({
      org: 'Acme',
      project: 'Patches',
    }));
  });
  afterAll(() => closeSuite(t, databases));

  for (const engine of ENGINES) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let connectionId: string;
      let patchId: string;
      let url: string;
      const checksum = async () => (await engine.query(url, engine.checksum))[0];

      beforeAll(async () => {
        const created = await engine.create();
        databases.push(created);
        url = created.url;
        await engine.load(created.url, engine.schema);
        const connection = await owner.post(
          `${API}/connections`,
          connectionBody(projectId, created.url, { name: `${engine.name} patches` }),
        );
        expect(connection.status).toBe(201);
        connectionId = connection.body.id;
      });

      const create = (sql: string, extra: Record<string, unknown> = {}) =>
        owner.post(`${API}/patches`, {
          project_id: projectId,
          connection_id: connectionId,
          title: 'Fix scores',
          sql,
          ...extra,
        });

      it('saves DML parsed into statements, lists, reads, edits and deletes it', async () => {
        const created = await create(
          "UPDATE people SET score = score + 1 WHERE id = 1; DELETE FROM people WHERE id = 3; INSERT INTO people (id, name, score) VALUES (4, 'Di', 1)",
        );
        expect(created.status).toBe(201);
        patchId = created.body.id;
        expect(created.body).toMatchObject({
          project_id: projectId,
          connection_id: connectionId,
          status: 'draft',
          allow_full_table: false,
          executed_at: null,
          execute_run_id: null,
        });
        expect(
          created.body.statements.map(({ index, kind, table, reversible }: Record<string, unknown>) => ({
            index,
            kind,
            table,
            reversible,
          })),
        ).toEqual([
          { index: 0, kind: 'update', table: 'people', reversible: true },
          { index: 1, kind: 'delete', table: 'people', reversible: true },
          { index: 2, kind: 'insert', table: 'people', reversible: true },
        ]);

        const listed = await owner.get(`${API}/patches?project_id=${projectId}`);
        expect(listed.status).toBe(200);
        expect(listed.body.items.map((p: { id: string }) => p.id)).toContain(patchId);
        expect((await owner.get(`${API}/patches/${patchId}`)).body.id).toBe(patchId);

        const edited = await owner.patch(`${API}/patches/${patchId}`, {
          title: 'Fix one score',
          sql: 'UPDATE people SET score = 10 WHERE id = 2',
        });
        expect(edited.status).toBe(200);
        expect(edited.body.title).toBe('Fix one score');
        expect(edited.body.statements).toHaveLength(1);
        const badEdit = await owner.patch(`${API}/patches/${patchId}`, { sql: 'DROP TABLE people' });
        expect(badEdit.status).toBe(422);
        expect((await owner.get(`${API}/patches/${patchId}`)).body.sql).toMatch(/score = 10/);

        const doomed = (await create('DELETE FROM people WHERE id = 2')).body.id;
        expect((await owner.delete(`${API}/patches/${doomed}`)).status).toBe(204);
        expect((await owner.get(`${API}/patches/${doomed}`)).status).toBe(404);
      });

      it('refuses DDL, hidden statements and full-table changes with 422 naming the statement', async () => {
        const ddl = await create('UPDATE people SET score = 1 WHERE id = 1; DROP TABLE people');
        expect(ddl.status).toBe(422);
        expect(ddl.body.detail[0].loc).toEqual(['body', 'sql']);
        // Messages number statements from 1: the DROP is the second.
        expect(ddl.body.detail[0].msg).toMatch(/^Statement 2: /);
        if (engine.dialect === 'mysql') {
          const elsewhere = await create('UPDATE mysql.user SET plugin = 1 WHERE 1 = 0');
          expect(elsewhere.status).toBe(422);
          expect(elsewhere.body.detail[0].msg).toMatch(
            /Statement 1: mysql.user is outside the connection's database/,
          );
        }
        expect((await create('CREATE TABLE x (id int)')).status).toBe(422);
        expect((await create('SELECT * FROM people')).status).toBe(422);
        const full = await create('DELETE FROM people');
        expect(full.status).toBe(422);
        expect(full.body.detail[0].msg).toMatch(/allow_full_table/);
        expect((await create('DELETE FROM people', { allow_full_table: true })).status).toBe(201);
      });

      it('dry-runs a patch: rows affected and samples, nothing changed', async () => {
        const before = await checksum();
        const created = await create(
          "UPDATE people SET score = score + 10 WHERE score >= 5; DELETE FROM people WHERE name = 'Ada'; INSERT INTO people (id, name, score) VALUES (9, 'Zed', 0)",
        );
        expect(created.status).toBe(201);
        const dry = await owner.post(`${API}/patches/${created.body.id}/dry-run`);
        expect(dry.status).toBe(200);
        expect(dry.body.total_affected_rows).toBe(4);
        const [update, del, insert] = dry.body.statements;
        expect(update.index).toBe(0);
        expect(update.affected_rows).toBe(2);
        expect(update.sample_before.map((r: { score: number }) => Number(r.score)).sort()).toEqual([5, 7]);
        expect(update.sample_after.map((r: { score: number }) => Number(r.score)).sort()).toEqual([15, 17]);
        expect(del).toMatchObject({ index: 1, affected_rows: 1, sample_after: [] });
        expect(del.sample_before[0].name).toBe('Ada');
        expect(insert).toMatchObject({ index: 2, affected_rows: 1, sample_before: [] });
        expect(await checksum()).toEqual(before);

        // A statement that fails on the target answers 422 naming it; still nothing changed.
        const broken = await create('UPDATE people SET no_such_column = 1 WHERE id = 1');
        const failed = await owner.post(`${API}/patches/${broken.body.id}/dry-run`);
        expect(failed.status).toBe(422);
        expect(failed.body.detail[0].msg).toMatch(/^Statement 1 failed/);
        expect(await checksum()).toEqual(before);
      });

      it('executes with before-images; a wrong expected_rows changes nothing', async () => {
        const before = await checksum();
        const created = await create(
          "UPDATE people SET name = 'Bobby' WHERE id = 2; DELETE FROM people WHERE id = 1",
        );
        const id = created.body.id;
        const wrong = await owner.post(`${API}/patches/${id}/execute`, { expected_rows: 5 });
        expect(wrong.status).toBe(202);
        expect(wrong.body).toMatchObject({ kind: 'patch_execute', subject_id: id });
        const failed = await waitForRun(owner, wrong.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(failed.status).toBe('failed');
        expect(failed.error).toMatch(/not the 5 expected/);
        expect(await checksum()).toEqual(before);
        expect((await owner.get(`${API}/patches/${id}`)).body.status).toBe('failed');
        const leftover = backupTable(dialects[engine.dialect], wrong.body.id, 0);
        await expect(engine.query(url, `select count(*) as n from ${leftover}`)).rejects.toThrow();
        // What an execution killed with its process would leave: the next execution clears it.
        await engine.query(url, `create table ${leftover} (id int)`);

        const right = await owner.post(`${API}/patches/${id}/execute`, { expected_rows: 2 });
        expect(right.status).toBe(202);
        const run = await waitForRun(owner, right.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(run.error).toBeNull();
        expect(run.status).toBe('succeeded');
        expect(run.result).toMatchObject({ affected_rows: [1, 1], total_affected_rows: 2 });
        await expect(engine.query(url, `select count(*) as n from ${leftover}`)).rejects.toThrow();
        expect(run.result.snapshot_id).toEqual(expect.any(String));
        const names = (await engine.query(url, 'select name from people order by id')).map((r) => r.name);
        expect(names).not.toContain('Ada');
        expect(names).toContain('Bobby');
        const saved = await engine.query(
          url,
          `select id, name from ${backupTable(dialects[engine.dialect], right.body.id, 0)}`,
        );
        expect(saved.map((r) => r.name)).toEqual(['Bob']);
        const deleted = await engine.query(
          url,
          `select name from ${backupTable(dialects[engine.dialect], right.body.id, 1)}`,
        );
        expect(deleted.map((r) => r.name)).toEqual(['Ada']);
        const after = await owner.get(`${API}/patches/${id}`);
        expect(after.body.status).toBe('executed');
        expect(after.body.executed_at).not.toBeNull();
        expect(after.body.execute_run_id).toBe(right.body.id);
        expect((await owner.post(`${API}/patches/${id}/execute`, {})).status).toBe(409);
      });

      it('rolls back by primary key; rows changed since are conflicts unless forced', async () => {
        const before = await checksum();
        const created = await create(
          'UPDATE people SET score = 50 WHERE id = 2; DELETE FROM people WHERE id = 3',
        );
        const id = created.body.id;
        expect((await owner.post(`${API}/patches/${id}/rollback`, {})).status).toBe(409);
        const executed = await owner.post(`${API}/patches/${id}/execute`, {});
        const run = await waitForRun(owner, executed.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(run.status).toBe('succeeded');
        expect(await checksum()).not.toEqual(before);

        // Someone changes a patched row afterwards: a conflict, nothing restored.
        await engine.query(url, 'update people set score = 51 where id = 2');
        const changed = await checksum();
        const refused = await owner.post(`${API}/patches/${id}/rollback`, {});
        expect(refused.status).toBe(202);
        expect(refused.body.kind).toBe('patch_rollback');
        const conflicted = await waitForRun(owner, refused.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(conflicted.status).toBe('failed');
        expect(conflicted.result.conflicts).toHaveLength(1);
        expect(conflicted.result.conflicts[0].index).toBe(0);
        expect(Number(conflicted.result.conflicts[0].keys[0].id)).toBe(2);
        expect(await checksum()).toEqual(changed);
        expect((await owner.get(`${API}/patches/${id}`)).body.status).toBe('executed');

        const forced = await owner.post(`${API}/patches/${id}/rollback`, { force: true });
        const done = await waitForRun(owner, forced.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(done.error).toBeNull();
        expect(done.status).toBe('succeeded');
        expect(await checksum()).toEqual(before);
        expect((await owner.get(`${API}/patches/${id}`)).body.status).toBe('rolled_back');
      });

      it('rolls back statements that touch the same rows again, without false conflicts', async () => {
        const before = await checksum();
        const created = await create(
          "INSERT INTO people (id, name, score) VALUES (20, 'Eve', 1), (21, 'Fay', 1); " +
            'UPDATE people SET score = score + 10 WHERE id IN (2, 20); ' +
            'UPDATE people SET score = score * 2 WHERE id IN (2, 21); ' +
            'DELETE FROM people WHERE id = 21',
        );
        expect(created.status).toBe(201);
        const executed = await owner.post(`${API}/patches/${created.body.id}/execute`, {});
        const run = await waitForRun(owner, executed.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(run.error).toBeNull();
        const rows = await engine.query(
          url,
          'select id, score from people where id in (2, 20, 21) order by id',
        );
        expect(rows.map((r) => `${r.id}:${r.score}`)).toEqual(['2:30', '20:11']);
        const rolled = await owner.post(`${API}/patches/${created.body.id}/rollback`, {});
        const done = await waitForRun(owner, rolled.body.id, ['succeeded', 'failed', 'cancelled']);
        expect(done.result.conflicts ?? done.result).toEqual([]);
        expect(done.status).toBe('succeeded');
        expect(await checksum()).toEqual(before);
      });

      it('says which statements cannot be rolled back; executing them needs allow_irreversible', async () => {
        await engine.query(url, 'create table notes (body varchar(100) not null, score int)');
        await engine.query(url, "insert into notes values ('a', 1), ('b', 2)");
        expect((await create('UPDATE missing SET x = 1 WHERE id = 1')).body.detail[0].msg).toMatch(
          /Statement 1: table missing does not exist/,
        );
        await engine.query(url, 'create view people_view as select id, score from people');
        expect((await create('UPDATE people_view SET score = 1 WHERE id = 1')).body.detail[0].msg).toMatch(
          /Statement 1: people_view is a view; a patch changes tables/,
        );
        const created = await create(
          "UPDATE people SET score = 1 WHERE id = 2; UPDATE notes SET score = 0 WHERE body = 'a'",
        );
        expect(created.status).toBe(201);
        expect(created.body.statements[0]).toMatchObject({ reversible: true, irreversible_reason: null });
        expect(created.body.statements[1]).toMatchObject({
          reversible: false,
          irreversible_reason: expect.stringMatching(/notes has no primary key/),
        });
        const refused = await owner.post(`${API}/patches/${created.body.id}/execute`, {});
        expect(refused.status).toBe(422);
        expect(refused.body.detail[0]).toMatchObject({
          loc: ['body', 'allow_irreversible'],
          type: 'irreversible_patch',
        });
        const run = await owner.post(`${API}/patches/${created.body.id}/execute`, {
          allow_irreversible: true,
        });
        expect(run.status).toBe(202);
        expect((await waitForRun(owner, run.body.id, ['succeeded', 'failed', 'cancelled'])).status).toBe(
          'succeeded',
        );
        expect(await engine.query(url, 'select score from notes order by body')).toEqual([
          { score: 0 },
          { score: 2 },
        ]);
        const rollback = await owner.post(`${API}/patches/${created.body.id}/rollback`, {});
        expect(rollback.status).toBe(409);
        expect(rollback.body.detail).toMatch(/statement 2: notes has no primary key/);
      });

      it('answers 401, 403 to a viewer writing, and 404 to another organization', async () => {
        expect((await t.anonymous.get(`${API}/patches/${patchId}`)).status).toBe(401);
        expect((await t.anonymous.post(`${API}/patches`, {})).status).toBe(401);
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
        expect((await viewer.get(`${API}/patches/${patchId}`)).status).toBe(200);
        expect((await viewer.get(`${API}/patches?project_id=${projectId}`)).status).toBe(200);
        expect((await viewer.patch(`${API}/patches/${patchId}`, { title: 'x' })).status).toBe(403);
        expect((await viewer.delete(`${API}/patches/${patchId}`)).status).toBe(403);
        expect((await viewer.post(`${API}/patches/${patchId}/dry-run`)).status).toBe(403);
        expect((await viewer.post(`${API}/patches/${patchId}/execute`, {})).status).toBe(403);
        expect((await viewer.post(`${API}/patches/${patchId}/rollback`, {})).status).toBe(403);
        expect((await t.anonymous.post(`${API}/patches/${patchId}/execute`, {})).status).toBe(401);
        const viewerCreate = await viewer.post(`${API}/patches`, {
          project_id: projectId,
          connection_id: connectionId,
          title: 'x',
          sql: 'DELETE FROM people WHERE id = 1',
        });
        expect(viewerCreate.status).toBe(403);

        const other = (await t.createOrg(`Other ${engine.name}`)).owner;
        expect((await other.get(`${API}/patches/${patchId}`)).status).toBe(404);
        expect((await other.patch(`${API}/patches/${patchId}`, { title: 'x' })).status).toBe(404);
        expect((await other.delete(`${API}/patches/${patchId}`)).status).toBe(404);
        expect((await other.post(`${API}/patches/${patchId}/dry-run`)).status).toBe(404);
        expect((await other.post(`${API}/patches/${patchId}/execute`, {})).status).toBe(404);
        expect((await other.post(`${API}/patches/${patchId}/rollback`, {})).status).toBe(404);
        expect((await other.get(`${API}/patches?project_id=${projectId}`)).status).toBe(404);
      });
    });
  }
});

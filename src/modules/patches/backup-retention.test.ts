// The backup_retention pass on the real PostgreSQL and MariaDB test servers: patches executed
// through the API, then passes as if run 29, 31 and 32 days later, reading the target's catalog to
// see which backup tables are left; and a connection gone unreachable, which must not hold up the
// patches of the others.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { type TargetEngine, targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { freePort, targetConfig } from '../../../test/support/targets.ts';
import { createTestAppWithWorker } from '../../../test/support/worker-runs.ts';
import { dialects } from '../../dialects/index.ts';
import type { Logger as JobsLogger } from '../module.ts';
import { type BackupRetentionResult, createBackupRetention } from './backup-retention.ts';
import { backupTable, imagesOf } from './patch-images.ts';

const API = '/api/v1';
const DAY = 24 * 60 * 60 * 1000;

const engines = await targetEngines('backup retention (backup-retention.test.ts)');

const ENGINES: (TargetEngine & {
  schema: string;
  /** The backup tables of a run left in the target, read from its catalog. */
  backups: (runId: string) => string;
})[] = [
  {
    ...engines.postgresql,
    schema:
      'create table people (id bigint primary key, name text not null, score integer); ' +
      "insert into people values (1, 'Ada', 3), (2, 'Bob', 5), (3, 'Cy', 7), (4, 'Di', 9);",
    backups: (runId) =>
      "select table_name as name from information_schema.tables where table_schema = 'dbops_backup' " +
      `and table_name like '${runId.replaceAll('-', '')}%' order by 1`,
  },
  {
    ...engines.mysql,
    schema:
      'create table people (id int primary key, name varchar(100) not null, score int); ' +
      "insert into people values (1, 'Ada', 3), (2, 'Bob', 5), (3, 'Cy', 7), (4, 'Di', 9);",
    backups: (runId) =>
      'select table_name as name from information_schema.tables where table_schema = database() ' +
      `and table_name like '\\_dbops\\_bak\\_${runId.replaceAll('-', '')}%' order by 1`,
  },
];

function recordingLogger(): JobsLogger & { warnings: { obj: object; msg: string }[] } {
  const warnings: { obj: object; msg: string }[] = [];
  return {
    warnings,
    info: () => {},
    warn: (obj, msg) => warnings.push({ obj, msg }),
    error: (obj, msg) => warnings.push({ obj, msg }),
  };
}

const at = (executedAt: Date, days: number) => new Date(executedAt.getTime() + days * DAY);
/** A timestamp as the API writes it. */
const asApi = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;

for (const engine of ENGINES) {
  describe(`backup retention of patches on ${engine.name}`, { skip: !engine.up }, () => {
    let t: TestApp;
    let owner: Client;
    let projectId: string;
    let url: string;
    let connectionId: string;
    let database: { url: string; drop(): Promise<void> } | undefined;
    let logger: ReturnType<typeof recordingLogger>;
    let connections: TestApp['composition']['connections'];
    let pass: (now: Date) => Promise<BackupRetentionResult>;

    beforeAll(async () => {
      t = await createTestAppWithWorker();
      owner = (await t.createOrg('Acme')).owner;
      projectId = (await owner.post(`${API}/projects`, { name: 'Retention' })).body.id;
      database = await engine.create();
      url = database.url;
      await engine.load(url, engine.schema);
      connectionId = await addConnection('main');
      // The process's one target access, which the job shares with the API.
      connections = t.composition.connections;
      logger = recordingLogger();
      pass = (now) =>
        createBackupRetention({
          db: t.store.db,
          connections,
          audit: t.composition.audit,
          logger,
          retentionDays: 30,
          now: () => now,
        })();
    });
    afterAll(async () => {
      await t?.close();
      await database?.drop();
    });

    async function addConnection(name: string): Promise<string> {
      const created = await owner.post(`${API}/connections`, connectionBody(projectId, url, { name }));
      expect(created.status).toBe(201);
      return created.body.id;
    }

    /** Saves and executes a patch; returns it as the API shows it, with its execute run's id. */
    async function executed(sql: string, connection = connectionId) {
      const created = await owner.post(`${API}/patches`, {
        project_id: projectId,
        connection_id: connection,
        title: 'Fix scores',
        sql,
      });
      expect(created.status).toBe(201);
      const started = await owner.post(`${API}/patches/${created.body.id}/execute`, {});
      expect(started.status).toBe(202);
      const run = await waitForRun(owner, started.body.id, ['succeeded', 'failed', 'cancelled']);
      expect(run.error).toBeNull();
      const patch = (await owner.get(`${API}/patches/${created.body.id}`)).body;
      expect(patch).toMatchObject({ status: 'executed', backups_dropped_at: null });
      return { id: patch.id as string, runId: run.id as string, executedAt: new Date(patch.executed_at) };
    }

    const backups = async (runId: string) =>
      (await engine.query(url, engine.backups(runId))).map((row) => String(row.name));
    const name = (runId: string, index: number, image: 'before' | 'after' = 'before') =>
      // The bare table name, as the catalog lists it.
      backupTable(dialects[engine.dialect], runId, index, image).split('.').at(-1)!.replace(/["`]/g, '');
    /** The images an UPDATE by primary key leaves (an after-image only on MySQL). */
    const updateImages = (runId: string, index: number) =>
      imagesOf(dialects[engine.dialect], { kind: 'update', key: ['id'] }).map((image) =>
        name(runId, index, image),
      );
    const people = async () =>
      (await engine.query(url, 'select id, name, score from people order by id'))
        .map((row) => `${row.id}:${row.name}:${row.score}`)
        .join(',');

    it('keeps the backups for the retention, then drops every one of them once, recorded and audited', async () => {
      const patch = await executed(
        "UPDATE people SET score = score + 1 WHERE id = 1; DELETE FROM people WHERE id = 3; INSERT INTO people (id, name, score) VALUES (5, 'Ed', 1)",
      );
      const left = [...updateImages(patch.runId, 0), name(patch.runId, 1), name(patch.runId, 2, 'after')];
      expect((await owner.delete(`${API}/patches/${patch.id}`)).status).toBe(409);
      expect(await backups(patch.runId)).toEqual(expect.arrayContaining(left));
      const data = await people();

      const early = await pass(at(patch.executedAt, 29));
      expect(early).toEqual({ due: 0, dropped: 0, failed: 0, errors: [] });
      expect(await backups(patch.runId)).toEqual(expect.arrayContaining(left));

      const due = at(patch.executedAt, 31);
      expect(await pass(due)).toEqual({ due: 1, dropped: 1, failed: 0, errors: [] });
      expect(await backups(patch.runId)).toEqual([]);
      expect(await people()).toBe(data);
      const shown = (await owner.get(`${API}/patches/${patch.id}`)).body;
      expect(shown).toMatchObject({ status: 'executed', backups_dropped_at: asApi(due) });
      const audit = await owner.get(`${API}/audit?action=patch.backups_drop`);
      expect(audit.status).toBe(200);
      expect(audit.body.items).toHaveLength(1);
      expect(audit.body.items[0]).toMatchObject({
        actor_type: 'system',
        actor_label: 'backup_retention',
        target_type: 'patch',
        target_id: patch.id,
        project_id: projectId,
        details: { run_id: patch.runId, retention_days: 30, statements: 3 },
      });

      const rollback = await owner.post(`${API}/patches/${patch.id}/rollback`, {});
      expect(rollback.status).toBe(409);
      expect(rollback.body.detail).toMatch(/backups were dropped/);

      // Nothing left to do: the next pass neither drops nor records again.
      expect(await pass(at(patch.executedAt, 32))).toEqual({ due: 0, dropped: 0, failed: 0, errors: [] });
      expect((await owner.get(`${API}/patches/${patch.id}`)).body.backups_dropped_at).toBe(asApi(due));
      expect((await owner.get(`${API}/audit?action=patch.backups_drop`)).body.items).toHaveLength(1);
      expect(logger.warnings).toEqual([]);
      // Without backups the patch is only a record: it may go.
      expect((await owner.delete(`${API}/patches/${patch.id}`)).status).toBe(204);
    });

    it('leaves alone a patch whose rollback started, even after the pass listed it', async () => {
      const patch = await executed('UPDATE people SET score = 0 WHERE id = 2');
      const rollbackStarts = () =>
        // What a patch_rollback run sets while it reads the before-images.
        t.store.db.updateTable('patches').set({ status: 'executing' }).where('id', '=', patch.id).execute();
      // It starts between the pass's list of due patches and their drop.
      const racing = createBackupRetention({
        db: t.store.db,
        audit: t.composition.audit,
        connections: {
          withTarget: connections.withTarget,
          dialectOf: connections.dialectOf,
          async findById(id) {
            await rollbackStarts();
            return connections.findById(id);
          },
        },
        logger,
        retentionDays: 30,
        now: () => at(patch.executedAt, 31),
      });
      expect(await racing()).toEqual({ due: 1, dropped: 0, failed: 0, errors: [] });
      expect(await backups(patch.runId)).toEqual(updateImages(patch.runId, 0));
      // Still running when the next pass lists the due patches.
      expect(await pass(at(patch.executedAt, 31))).toMatchObject({ due: 0, dropped: 0 });
      expect((await owner.get(`${API}/patches/${patch.id}`)).body.backups_dropped_at).toBeNull();

      await t.store.db
        .updateTable('patches')
        .set({ status: 'rolled_back' })
        .where('id', '=', patch.id)
        .execute();
      expect(await pass(at(patch.executedAt, 31))).toEqual({ due: 1, dropped: 1, failed: 0, errors: [] });
      expect(await backups(patch.runId)).toEqual([]);
    });

    it('drops the backups of the other connections when one cannot be reached, and its own later', async () => {
      const doomedConnection = await addConnection('goes away');
      // Executed first, so it is first in the pass's list.
      const stranded = await executed('UPDATE people SET score = 40 WHERE id = 4', doomedConnection);
      const fine = await executed('DELETE FROM people WHERE id = 2');
      const realPort = targetConfig(url).port;
      const moved = await owner.patch(`${API}/connections/${doomedConnection}`, {
        port: await freePort(),
        password: targetConfig(url).password,
      });
      expect(moved.status).toBe(200);

      const result = await pass(at(fine.executedAt, 31));
      expect(result).toMatchObject({ due: 2, dropped: 1, failed: 1 });
      expect(result.errors).toEqual([
        {
          patch_id: stranded.id,
          connection_id: doomedConnection,
          // The 502's message names the connection (by its name) and the cause.
          error: expect.stringMatching(/^Connection "goes away" failed: The server is unreachable/),
        },
      ]);
      expect(await backups(fine.runId)).toEqual([]);
      expect(await backups(stranded.runId)).toEqual(updateImages(stranded.runId, 0));
      expect((await owner.get(`${API}/patches/${fine.id}`)).body.backups_dropped_at).not.toBeNull();
      expect((await owner.get(`${API}/patches/${stranded.id}`)).body.backups_dropped_at).toBeNull();
      expect(logger.warnings).toEqual([
        {
          obj: expect.objectContaining({ connection_id: doomedConnection, patch_ids: [stranded.id] }),
          msg: 'patch backups not dropped: the next pass tries again',
        },
      ]);

      // The server is back: the next pass catches up.
      expect(
        (
          await owner.patch(`${API}/connections/${doomedConnection}`, {
            port: realPort,
            password: targetConfig(url).password,
          })
        ).status,
      ).toBe(200);
      expect(await pass(at(fine.executedAt, 32))).toEqual({ due: 1, dropped: 1, failed: 0, errors: [] });
      expect(await backups(stranded.runId)).toEqual([]);
      expect((await owner.get(`${API}/patches/${stranded.id}`)).body.backups_dropped_at).not.toBeNull();
    });

    it('deleting a connection drops the backups its patches keep, or names them when it cannot', async () => {
      const reachable = await addConnection('deleted while reachable');
      const kept = await executed('UPDATE people SET score = 60 WHERE id = 4', reachable);
      expect(await backups(kept.runId)).toEqual(updateImages(kept.runId, 0));
      expect((await owner.delete(`${API}/connections/${reachable}`)).status).toBe(204);
      expect(await backups(kept.runId)).toEqual([]);

      const gone = await addConnection('deleted while unreachable');
      const stranded = await executed('UPDATE people SET score = 61 WHERE id = 4', gone);
      expect(
        (
          await owner.patch(`${API}/connections/${gone}`, {
            port: await freePort(),
            password: targetConfig(url).password,
          })
        ).status,
      ).toBe(200);
      expect((await owner.delete(`${API}/connections/${gone}`)).status).toBe(204);
      expect(await backups(stranded.runId)).toEqual(updateImages(stranded.runId, 0));
      const entry = (await owner.get(`${API}/audit?action=connection.delete`)).body.items.find(
        (e: { target_id: string }) => e.target_id === gone,
      );
      expect(entry.details.backups_left).toEqual(
        expect.arrayContaining(updateImages(stranded.runId, 0).map((n) => expect.stringContaining(n))),
      );
    });
  });
}

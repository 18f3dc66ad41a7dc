// A patch whose run died mid-way (patch-interrupted.ts) is settled from the target: rows in the
// dead run's before-images mean its transaction committed (executed, never applied again); none,
// or no image table at all, mean it rolled back (failed, can be executed again). A rollback whose
// run died is rolled back when the rows are as their before-images (its restore committed), else
// executed again. On both engines.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';
import { dialects } from '../../dialects/index.ts';
import type { Run } from '../../store/tables.ts';
import { backupTable } from './patch-images.ts';
import { updatePatch } from './patches.repo.ts';

const API = '/api/v1';
const engines = await targetEngines('interrupted patch runs (patch-interrupted.test.ts)');

describe('settling a patch whose run was interrupted', () => {
  let t: TestApp;
  let owner: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, owner, projectId } = await createWorkerProject({ org: 'Interrupted', project: 'Settled' }));
  });
  afterAll(() => closeSuite(t, databases));

  for (const engine of [engines.postgresql, engines.mysql]) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let url: string;
      let connectionId: string;

      beforeAll(async () => {
        const created = await engine.create();
        databases.push(created);
        url = created.url;
        await engine.load(
          url,
          'create table people (id int primary key, score int not null); insert into people values (1, 1);',
        );
        const connection = await owner.post(`${API}/connections`, connectionBody(projectId, url));
        connectionId = connection.body.id;
      });

      /** A patch left `executing` by a run that died, and the run as the sweep failed it. */
      async function interrupted(): Promise<{ patchId: string; run: Run }> {
        const created = await owner.post(`${API}/patches`, {
          project_id: projectId,
          connection_id: connectionId,
          title: 'bump',
          sql: 'UPDATE people SET score = score + 1 WHERE id = 1',
        });
        expect(created.status).toBe(201);
        await updatePatch(t.store.db, created.body.id, { status: 'executing', updated_at: new Date() });
        const run = { id: randomUUID(), kind: 'patch_execute', subject_id: created.body.id } as Run;
        return { patchId: created.body.id, run };
      }
      const settle = (run: Run) => t.composition.runKinds.get('patch_execute')?.interrupted?.(run);
      const dialect = () => engine.dialect;

      it('executed when the images hold rows: the commit happened', async () => {
        const { patchId, run } = await interrupted();
        const image = backupTable(dialects[dialect()], run.id, 0);
        for (const setup of dialects[dialect()].ownTablesSetup()) await engine.query(url, setup);
        await engine.query(url, `create table ${image} (id int, score int)`);
        await engine.query(url, `insert into ${image} values (1, 1)`);
        await settle(run);
        const patch = (await owner.get(`${API}/patches/${patchId}`)).body;
        expect(patch).toMatchObject({ status: 'executed', execute_run_id: run.id });
        expect((await owner.post(`${API}/patches/${patchId}/execute`, {})).status).toBe(409);
      });

      it('failed when the images are empty or were never made: nothing was committed', async () => {
        const empty = await interrupted();
        const image = backupTable(dialects[dialect()], empty.run.id, 0);
        await engine.query(url, `create table ${image} (id int, score int)`);
        await settle(empty.run);
        expect((await owner.get(`${API}/patches/${empty.patchId}`)).body.status).toBe('failed');

        const none = await interrupted();
        await settle(none.run);
        expect((await owner.get(`${API}/patches/${none.patchId}`)).body.status).toBe('failed');
        expect((await owner.post(`${API}/patches/${none.patchId}/execute`, {})).status).toBe(202);
      });

      it('a rollback: rolled back when the rows are as before the patch, executed when they are not', async () => {
        // A table of its own: the execution the test above queued bumps `people` meanwhile.
        await engine.load(
          url,
          'create table ranked (id int primary key, score int not null); insert into ranked values (1, 1);',
        );
        const created = await owner.post(`${API}/patches`, {
          project_id: projectId,
          connection_id: connectionId,
          title: 'bump to roll back',
          sql: 'UPDATE ranked SET score = score + 10 WHERE id = 1',
        });
        const executed = await owner.post(`${API}/patches/${created.body.id}/execute`, {});
        expect((await waitForRun(owner, executed.body.id, ['succeeded', 'failed'])).status).toBe('succeeded');
        const [{ score }] = (await engine.query(url, 'select score from ranked where id = 1')) as [
          { score: number },
        ];
        const rollback = (run: Run) => t.composition.runKinds.get('patch_rollback')?.interrupted?.(run);
        const run = { id: randomUUID(), kind: 'patch_rollback', subject_id: created.body.id } as Run;
        const status = async () => (await owner.get(`${API}/patches/${created.body.id}`)).body.status;

        // The restore never committed: the row is as the patch left it.
        await updatePatch(t.store.db, created.body.id, { status: 'executing', updated_at: new Date() });
        await rollback(run);
        expect(await status()).toBe('executed');

        // The restore committed, the process died before telling the store.
        await engine.query(url, `update ranked set score = ${Number(score) - 10} where id = 1`);
        await updatePatch(t.store.db, created.body.id, { status: 'executing', updated_at: new Date() });
        await rollback(run);
        expect(await status()).toBe('rolled_back');
        expect((await owner.post(`${API}/patches/${created.body.id}/rollback`, {})).status).toBe(409);
      });
    });
  }
});

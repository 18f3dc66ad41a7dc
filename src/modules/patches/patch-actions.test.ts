// What a patch allows, as the server says it (`allowed_actions`) and enforces it: one run of a patch
// at a time (a second execute while one waits for approval answers 409 naming it, where it used to
// queue a second run behind the same approval), a failed execute that changed nothing may run again,
// a viewer may do nothing. On both engines: the state machine is the same whatever the target.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { newProjectMember } from '../../../test/support/members.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const FINISHED = ['succeeded', 'failed', 'cancelled'];
const engines = await targetEngines('patch actions (patch-actions.test.ts)');
const SCHEMA =
  'create table accounts (id int primary key, balance int not null); ' +
  'insert into accounts values (1, 10), (2, 20), (3, 30);';

describe('what a patch allows, and one run of it at a time', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let developer: Client;
  let viewer: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, orgId, owner, projectId } = await createWorkerProject({ org: 'Ledger', project: 'Accounts' }));
    developer = await newProjectMember(t, orgId, owner, projectId, 'developer');
    viewer = await newProjectMember(t, orgId, owner, projectId, 'viewer');
  });
  afterAll(() => closeSuite(t, databases));

  for (const engine of [engines.postgresql, engines.mysql]) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let url: string;
      let production: string;
      let development: string;

      beforeAll(async () => {
        const created = await engine.create();
        databases.push(created);
        url = created.url;
        await engine.load(url, SCHEMA);
        const connection = async (environment: string) => {
          const made = await owner.post(
            `${API}/connections`,
            connectionBody(projectId, url, { name: `${engine.name} ${environment}`, environment }),
          );
          expect(made.status).toBe(201);
          return made.body.id as string;
        };
        production = await connection('production');
        development = await connection('development');
      });

      const draft = async (connectionId: string, sql: string) => {
        const created = await developer.post(`${API}/patches`, {
          project_id: projectId,
          connection_id: connectionId,
          title: 'Credit account 1',
          sql,
        });
        expect(created.status).toBe(201);
        return created.body;
      };
      const actionsOf = async (client: Client, id: string) =>
        (await client.get(`${API}/patches/${id}`)).body.allowed_actions;

      it('answers a second execute while the first waits for approval with 409 naming it', async () => {
        const patch = await draft(production, 'UPDATE accounts SET balance = balance + 1 WHERE id = 1');
        expect(patch.allowed_actions).toEqual(['edit', 'dry_run', 'execute', 'delete']);
        expect(await actionsOf(viewer, patch.id)).toEqual([]);

        const first = await developer.post(`${API}/patches/${patch.id}/execute`, {});
        expect(first.status).toBe(202);
        expect(first.body).toMatchObject({
          status: 'awaiting_approval',
          subject: {
            kind: 'patch',
            id: patch.id,
            title: 'Credit account 1',
            connection: { id: production, environment: 'production', protected: true },
            summary: 'UPDATE accounts SET balance = balance + 1 WHERE id = 1',
          },
        });
        const second = await developer.post(`${API}/patches/${patch.id}/execute`, {});
        expect(second.status).toBe(409);
        expect(second.body.detail).toContain(first.body.id);
        // Editing voids the waiting approval (and cancels its run), so it stays offered; executing does not.
        expect(await actionsOf(developer, patch.id)).toEqual(['edit', 'dry_run', 'delete']);
        const runs = await owner.get(`${API}/runs?project_id=${projectId}&kind=patch_execute`);
        expect(runs.body.items.filter((r: { subject_id: string }) => r.subject_id === patch.id)).toHaveLength(
          1,
        );

        const approval = await owner.get(`${API}/approvals/${first.body.approval_id}`);
        expect(approval.body).toMatchObject({ can_decide: true, subject: first.body.subject });
        expect((await developer.get(`${API}/approvals/${first.body.approval_id}`)).body.can_decide).toBe(
          false,
        );
        expect(
          (await owner.patch(`${API}/approvals/${first.body.approval_id}`, { decision: 'approve' })).status,
        ).toBe(200);
        expect((await waitForRun(developer, first.body.id, FINISHED)).status).toBe('succeeded');
        expect(await engine.query(url, 'select balance from accounts where id = 1')).toEqual([
          { balance: 11 },
        ]);
        expect(await actionsOf(developer, patch.id)).toEqual(['rollback']);
        expect(await actionsOf(viewer, patch.id)).toEqual([]);
      });

      it('offers execute again after an execute that failed with nothing changed', async () => {
        const patch = await draft(
          development,
          'UPDATE accounts SET balance = balance - 1 WHERE id IN (2, 3)',
        );
        const wrong = await developer.post(`${API}/patches/${patch.id}/execute`, { expected_rows: 5 });
        expect(wrong.status).toBe(202);
        expect((await waitForRun(developer, wrong.body.id, FINISHED)).status).toBe('failed');
        expect(
          await engine.query(url, 'select balance from accounts where id in (2, 3) order by id'),
        ).toEqual([{ balance: 20 }, { balance: 30 }]);
        const failed = (await developer.get(`${API}/patches/${patch.id}`)).body;
        expect(failed.status).toBe('failed');
        expect(failed.allowed_actions).toEqual(['edit', 'dry_run', 'execute', 'delete']);

        const again = await developer.post(`${API}/patches/${patch.id}/execute`, { expected_rows: 2 });
        expect(again.status).toBe(202);
        expect((await waitForRun(developer, again.body.id, FINISHED)).status).toBe('succeeded');
        expect(
          await engine.query(url, 'select balance from accounts where id in (2, 3) order by id'),
        ).toEqual([{ balance: 19 }, { balance: 29 }]);
      });
    });
  }
});

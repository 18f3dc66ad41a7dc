// A protected connection (docs/contract.md §6) on the real test servers: with a project policy that asks for no
// approval at all, every run writing to it (patch execute and rollback, migration apply) waits for
// an approval by someone other than the requester, and runs once granted. The same writes to an
// unprotected twin run at once, so the protection, not the policy, is what holds them. Protecting a
// connection also outranks approvals asked before: a waiting run is not released, and an unused
// self-granted approval is not used, on the requester's word alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';

const API = '/api/v1';
const engines = await targetEngines('protected connections (protected-connections.test.ts)');
const DONE = ['succeeded', 'failed', 'cancelled'];

describe('protected connections', () => {
  let t: TestApp;
  let owner: Client;
  let reviewer: Client;
  let projectId: string;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    let orgId: string;
    ({ t, orgId, owner, projectId } = await createWorkerProject({ org: 'Guarded', project: 'Protected' }));
    reviewer = await t.createUser(orgId, 'member');
    const added = await owner.post(`${API}/projects/${projectId}/members`, {
      user_id: reviewer.user.id,
      role: 'admin',
    });
    expect(added.status).toBe(201);
    // No operation on any environment needs approval by policy.
    expect((await owner.put(`${API}/projects/${projectId}/policy`, { rules: [] })).status).toBe(200);
  });
  afterAll(() => closeSuite(t, databases));

  for (const engine of [engines.postgresql, engines.mysql]) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      async function connection(sql: string, isProtected: boolean): Promise<string> {
        const created = await engine.create();
        databases.push(created);
        await engine.load(created.url, sql);
        const response = await owner.post(
          `${API}/connections`,
          connectionBody(projectId, created.url, { environment: 'development', protected: isProtected }),
        );
        expect(response.status).toBe(201);
        expect(response.body.protected).toBe(isProtected);
        return response.body.id;
      }

      /** Runs `work` under a policy where the requester may approve their own migration on development. */
      async function selfApprovable(work: () => Promise<void>) {
        const rule = {
          operation: 'migration_apply',
          environments: ['development'],
          required_approvals: 1,
          allow_self_approval: true,
        };
        expect((await owner.put(`${API}/projects/${projectId}/policy`, { rules: [rule] })).status).toBe(200);
        try {
          await work();
        } finally {
          await owner.put(`${API}/projects/${projectId}/policy`, { rules: [] });
        }
      }

      /** Refused to the requester, granted by the reviewer: the run then starts and finishes. */
      async function approveByOther(run: { id: string; approval_id: string }) {
        const self = await owner.patch(`${API}/approvals/${run.approval_id}`, { decision: 'approve' });
        expect(self.status).toBe(403);
        const granted = await reviewer.patch(`${API}/approvals/${run.approval_id}`, { decision: 'approve' });
        expect(granted.status).toBe(200);
        expect(granted.body).toMatchObject({ status: 'approved', required_approvals: 1 });
        return waitForRun(owner, run.id, DONE);
      }

      it('holds patch execute and rollback for an approval by someone else, whatever the policy', async () => {
        const table =
          'create table items (id int primary key, qty int); insert into items values (1, 1), (2, 2);';
        const patchOn = async (connectionId: string) =>
          (
            await owner.post(`${API}/patches`, {
              project_id: projectId,
              connection_id: connectionId,
              title: 'Bump',
              sql: 'UPDATE items SET qty = qty + 10 WHERE id = 1',
            })
          ).body.id as string;

        const open = await patchOn(await connection(table, false));
        const unguarded = await owner.post(`${API}/patches/${open}/execute`, {});
        expect(unguarded.status).toBe(202);
        expect(unguarded.body.approval_id).toBeNull();
        expect((await waitForRun(owner, unguarded.body.id, DONE)).status).toBe('succeeded');

        const guarded = await patchOn(await connection(table, true));
        const execute = await owner.post(`${API}/patches/${guarded}/execute`, {});
        expect(execute.status).toBe(202);
        expect(execute.body.status).toBe('awaiting_approval');
        expect(execute.body.approval_id).not.toBeNull();
        expect((await approveByOther(execute.body)).status).toBe('succeeded');

        const rollback = await owner.post(`${API}/patches/${guarded}/rollback`, {});
        expect(rollback.status).toBe(202);
        expect(rollback.body.status).toBe('awaiting_approval');
        expect((await approveByOther(rollback.body)).status).toBe('succeeded');
      });

      it('holds a migration apply for an approval by someone else, whatever the policy', async () => {
        const source = await connection('create table items (id int primary key, qty int, note int);', false);
        const target = await connection('create table items (id int primary key, qty int);', true);
        const compared = await owner.post(`${API}/projects/${projectId}/migrations/compare`, {
          source_connection_id: source,
          target_connection_id: target,
        });
        expect(compared.status).toBe(201);
        const apply = await owner.post(`${API}/migrations/${compared.body.id}/apply`, {});
        expect(apply.status).toBe(202);
        expect(apply.body.status).toBe('awaiting_approval');
        expect((await approveByOther(apply.body)).status).toBe('succeeded');
        expect((await owner.get(`${API}/migrations/${compared.body.id}`)).body.status).toBe('applied');
      });

      /** A migration from an unprotected source to an unprotected target, and the target's id. */
      async function migrationToUnprotected(): Promise<{ migration: string; target: string }> {
        const source = await connection('create table items (id int primary key, qty int, note int);', false);
        const target = await connection('create table items (id int primary key, qty int);', false);
        const compared = await owner.post(`${API}/projects/${projectId}/migrations/compare`, {
          source_connection_id: source,
          target_connection_id: target,
        });
        expect(compared.status).toBe(201);
        return { migration: compared.body.id, target };
      }

      it("does not release a waiting run on its requester's own approval once the connection is protected", async () => {
        await selfApprovable(async () => {
          const { migration, target } = await migrationToUnprotected();
          const waiting = await owner.post(`${API}/migrations/${migration}/apply`, {});
          expect(waiting.body.status).toBe('awaiting_approval');

          expect((await owner.patch(`${API}/connections/${target}`, { protected: true })).status).toBe(200);
          // Asked on the terms of then, so the requester may still decide; the run is not released.
          const self = await owner.patch(`${API}/approvals/${waiting.body.approval_id}`, {
            decision: 'approve',
          });
          expect(self.status).toBe(200);
          const run = (await owner.get(`${API}/runs/${waiting.body.id}`)).body;
          expect(run.status).toBe('cancelled');
          expect(run.error).toMatch(
            /is protected: the run needs an approval by someone other than its requester/,
          );
          expect((await owner.get(`${API}/migrations/${migration}`)).body.status).toBe('draft');

          // Asked again: today's terms, granted by someone else, and it runs.
          const again = await owner.post(`${API}/migrations/${migration}/apply`, {});
          expect(again.body.status).toBe('awaiting_approval');
          expect((await approveByOther(again.body)).status).toBe('succeeded');
        });
      });

      it('voids an approval granted by the requester alone before the connection was protected', async () => {
        await selfApprovable(async () => {
          const { migration, target } = await migrationToUnprotected();
          const first = await owner.post(`${API}/migrations/${migration}/apply`, {});
          expect(first.body.status).toBe('awaiting_approval');
          // Withdrawn, so the approval stays granted and unused when it is approved.
          expect((await owner.post(`${API}/runs/${first.body.id}/cancel`)).status).toBe(200);
          const self = await owner.patch(`${API}/approvals/${first.body.approval_id}`, {
            decision: 'approve',
          });
          expect(self.status).toBe(200);
          expect(self.body.status).toBe('approved');

          expect((await owner.patch(`${API}/connections/${target}`, { protected: true })).status).toBe(200);
          const again = await owner.post(`${API}/migrations/${migration}/apply`, {});
          expect(again.status).toBe(202);
          expect(again.body.status).toBe('awaiting_approval');
          expect(again.body.approval_id).not.toBe(first.body.approval_id);
          expect((await owner.get(`${API}/approvals/${first.body.approval_id}`)).body.status).toBe(
            'cancelled',
          );
        });
      });
    });
  }
});

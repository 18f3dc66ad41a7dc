// A run that waits for approval executes with its requester's rights as they are when the approval
// releases it (src/modules/runs/run-requester.ts): each way of losing the right while the run waits
// ends it `cancelled` at the grant, with the reason, the target and the patch or migration as they
// were. Runs are worked for real on a PostgreSQL target. One engine suffices: the check is made in
// the store before any target is touched; both engines run the scenario where the right holds
// (src/modules/access-requests/access-scenario.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { loadPostgresSql } from '../../../test/support/corpus.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  testPgUrl,
} from '../../../test/support/databases.ts';
import { newProjectMember } from '../../../test/support/members.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { queryPostgres } from '../../../test/support/target-query.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';
import { createApprovalExpiry } from './expiry-pass.ts';

const API = '/api/v1';
const MINUTE = 60_000;
const FINISHED = ['succeeded', 'failed', 'cancelled'];
const LOST_ROLE = 'This action requires the project developer role; they hold viewer';

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('the release of waiting runs (approval-release.test.ts)', 'PostgreSQL', testPgUrl);

describe('a run released by an approval is checked against its requester', { skip: !pgUp }, () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let admin: Client;
  let projectId: string;
  let targetUrl: string;
  let production: string;
  let source: string;
  let expire: ReturnType<typeof createApprovalExpiry>;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, orgId, owner, projectId } = await createWorkerProject({
      org: 'Release Inc',
      project: 'Payouts',
    }));
    admin = await member('admin');
    expire = createApprovalExpiry({
      db: t.store.db,
      audit: t.composition.audit,
      logger: { info() {}, warn() {}, error() {} },
      now: t.now,
    });
    const database = async (sql: string) => {
      const created = (await createTestPgDatabase())!;
      databases.push(created);
      await loadPostgresSql(created.url, sql);
      return created.url;
    };
    targetUrl = await database(
      'create table payouts (id bigint primary key, status text not null); ' +
        "insert into payouts values (1, 'stuck'), (2, 'stuck'); " +
        'create table people (id bigint primary key, name text not null);',
    );
    // The schema a migration brings to production: one column more, nothing dropped.
    const sourceUrl = await database(
      'create table payouts (id bigint primary key, status text not null); ' +
        'create table people (id bigint primary key, name text not null, note text);',
    );
    const connection = async (url: string, environment: string) => {
      const created = await owner.post(`${API}/connections`, connectionBody(projectId, url, { environment }));
      expect(created.status).toBe(201);
      return created.body.id;
    };
    production = await connection(targetUrl, 'production');
    source = await connection(sourceUrl, 'development');
  });
  afterAll(() => closeSuite(t, databases));

  const member = (role: 'admin' | 'developer' | 'viewer') =>
    newProjectMember(t, orgId, owner, projectId, role);

  /**
   * A project viewer holding, by approved access requests, `developer` on the production connection
   * (and on `also`, each a grant of its own); `requestId` is production's.
   */
  async function grantee(also: string[] = []): Promise<{ client: Client; requestId: string }> {
    const client = await member('viewer');
    const ids: string[] = [];
    for (const connectionId of [production, ...also]) {
      const asked = await client.post(`${API}/projects/${projectId}/access-requests`, {
        role: 'developer',
        connection_id: connectionId,
        duration_minutes: 60,
        reason: 'Incident 4711',
      });
      expect(asked.status).toBe(201);
      const approved = await admin.patch(`${API}/approvals/${asked.body.approval_id}`, {
        decision: 'approve',
      });
      expect(approved.status).toBe(200);
      expect((await client.get(`${API}/access-requests/${asked.body.id}`)).body.status).toBe('active');
      ids.push(asked.body.id);
    }
    return { client, requestId: ids[0]! };
  }

  const rows = async () =>
    (await queryPostgres(targetUrl, 'select id, status from payouts order by id')).map((r) => [
      Number(r.id),
      r.status,
    ]);
  const columns = async () =>
    (
      await queryPostgres(
        targetUrl,
        "select column_name from information_schema.columns where table_name = 'people' order by ordinal_position",
      )
    ).map((r) => r.column_name);

  /** A patch drafted by the admin and executed by `client`: on production, it waits for approval. */
  async function waitingPatchRun(client: Client) {
    const patch = await admin.post(`${API}/patches`, {
      project_id: projectId,
      connection_id: production,
      title: 'Release stuck payout 1',
      sql: "UPDATE payouts SET status = 'released' WHERE id = 1",
    });
    expect(patch.status).toBe(201);
    const started = await client.post(`${API}/patches/${patch.body.id}/execute`, { expected_rows: 1 });
    expect(started.status).toBe(202);
    expect(started.body.status).toBe('awaiting_approval');
    return { patchId: patch.body.id as string, run: started.body };
  }

  async function approve(approvalId: string) {
    const released = await admin.patch(`${API}/approvals/${approvalId}`, { decision: 'approve' });
    expect(released.status).toBe(200);
    expect(released.body.status).toBe('approved');
  }

  /** The run ended at the grant, for `reason`, audited as the approver's cancellation. */
  async function expectCancelled(runId: string, reason: string) {
    // Decided in the approval's transaction: no worker is waited for.
    const run = (await owner.get(`${API}/runs/${runId}`)).body;
    expect(run).toMatchObject({ status: 'cancelled', started_at: null, result: null, error: reason });
    expect(run.finished_at).not.toBeNull();
    const entries = (await owner.get(`${API}/audit?project_id=${projectId}&action=run.cancel&page_size=200`))
      .body.items;
    expect(entries.filter((e: { target_id: string }) => e.target_id === runId)).toMatchObject([
      { actor_id: admin.user.id, details: { reason, status: 'cancelled' } },
    ]);
  }

  const patchCases: {
    name: string;
    requester(): Promise<{ client: Client; requestId?: string }>;
    lose(who: { client: Client; requestId?: string }): Promise<void>;
    why: string;
  }[] = [
    {
      name: 'their just-in-time grant expired',
      requester: grantee,
      async lose() {
        t.advance(60 * MINUTE + MINUTE);
        expect(await expire()).toEqual({ approvals_expired: 0, grants_expired: 1 });
      },
      why: LOST_ROLE,
    },
    {
      name: 'their just-in-time grant was revoked',
      requester: grantee,
      async lose({ requestId }) {
        expect((await admin.post(`${API}/access-requests/${requestId}/revoke`)).status).toBe(200);
      },
      why: LOST_ROLE,
    },
    {
      name: 'they were removed from the project',
      requester: async () => ({ client: await member('developer') }),
      async lose({ client }) {
        const removed = await owner.delete(`${API}/projects/${projectId}/members/${client.user.id}`);
        expect(removed.status).toBe(204);
      },
      why: 'they are no longer a member of it',
    },
    {
      name: 'they were demoted to viewer',
      requester: async () => ({ client: await member('developer') }),
      async lose({ client }) {
        const demoted = await owner.patch(`${API}/projects/${projectId}/members/${client.user.id}`, {
          role: 'viewer',
        });
        expect(demoted.status).toBe(200);
      },
      why: LOST_ROLE,
    },
    {
      name: 'their account was deactivated',
      requester: async () => ({ client: await member('developer') }),
      async lose({ client }) {
        expect((await owner.patch(`${API}/users/${client.user.id}`, { active: false })).status).toBe(200);
      },
      why: 'their account is deactivated',
    },
    {
      name: 'their account was deleted',
      requester: async () => ({ client: await member('developer') }),
      async lose({ client }) {
        expect((await owner.delete(`${API}/users/${client.user.id}`)).status).toBe(204);
      },
      why: 'their account was deleted',
    },
  ];

  for (const { name, requester, lose, why } of patchCases) {
    it(`cancels a waiting patch execute when ${name}, leaving the target and the patch as they were`, async () => {
      const who = await requester();
      const { patchId, run } = await waitingPatchRun(who.client);
      await lose(who);
      await approve(run.approval_id);
      await expectCancelled(run.id, `The requester no longer may patch.execute on this project (${why})`);
      expect(await rows()).toEqual([
        [1, 'stuck'],
        [2, 'stuck'],
      ]);
      const patch = (await owner.get(`${API}/patches/${patchId}`)).body;
      expect(patch).toMatchObject({ status: 'draft', executed_at: null });
    });
  }

  it('fails a released patch execute whose target schema changed since it was approved against it', async () => {
    const developer = await member('developer');
    const { patchId, run } = await waitingPatchRun(developer);
    await queryPostgres(targetUrl, 'create table audit_notes (id bigint primary key)');
    try {
      await approve(run.approval_id);
      const done = await waitForRun(developer, run.id, FINISHED);
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/schema changed since this run was requested/);
      expect(await rows()).toEqual([
        [1, 'stuck'],
        [2, 'stuck'],
      ]);
      // Asked again, the execution is new content: it waits for a new approval.
      const again = await developer.post(`${API}/patches/${patchId}/execute`, { expected_rows: 1 });
      expect(again.body).toMatchObject({ status: 'awaiting_approval' });
      expect(again.body.approval_id).not.toBe(run.approval_id);
      await admin.patch(`${API}/approvals/${again.body.approval_id}`, { decision: 'reject' });
    } finally {
      await queryPostgres(targetUrl, 'drop table audit_notes');
    }
  });

  describe('a migration apply, with grants on its source and target connections', () => {
    async function compare() {
      const compared = await owner.post(`${API}/projects/${projectId}/migrations/compare`, {
        source_connection_id: source,
        target_connection_id: production,
      });
      expect(compared.status).toBe(201);
      return compared;
    }

    async function waitingApply(client: Client) {
      const compared = await compare();
      const started = await client.post(`${API}/migrations/${compared.body.id}/apply`, {});
      expect(started.status).toBe(202);
      expect(started.body.status).toBe('awaiting_approval');
      return { migrationId: compared.body.id as string, run: started.body };
    }

    it('is refused before any run exists with a grant on the target only: a grant opens no other connection', async () => {
      const { client } = await grantee();
      const compared = await compare();
      const refused = await client.post(`${API}/migrations/${compared.body.id}/apply`, {});
      expect(refused.status).toBe(403);
      const runs = await owner.get(`${API}/runs?project_id=${projectId}&kind=migration_apply`);
      expect(
        runs.body.items.filter((r: { subject_id: string }) => r.subject_id === compared.body.id),
      ).toEqual([]);
    });

    it('is cancelled when the grant was revoked meanwhile; the schema and the migration stay as they were', async () => {
      const { client, requestId } = await grantee([source]);
      const { migrationId, run } = await waitingApply(client);
      expect((await client.post(`${API}/access-requests/${requestId}/revoke`)).status).toBe(200);
      await approve(run.approval_id);
      await expectCancelled(
        run.id,
        `The requester no longer may migration.apply on this project (${LOST_ROLE})`,
      );
      expect(await columns()).toEqual(['id', 'name']);
      expect((await owner.get(`${API}/migrations/${migrationId}`)).body.status).toBe('draft');
    });

    it('runs when the grants still hold: the grants on its connections count at release', async () => {
      const { client } = await grantee([source]);
      const { migrationId, run } = await waitingApply(client);
      await approve(run.approval_id);
      const done = await waitForRun(client, run.id, FINISHED);
      expect(done).toMatchObject({ status: 'succeeded', error: null });
      expect(await columns()).toEqual(['id', 'name', 'note']);
      expect((await owner.get(`${API}/migrations/${migrationId}`)).body.status).toBe('applied');
    });
  });
});

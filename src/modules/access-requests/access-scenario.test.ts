// The just-in-time access scenario end to end, on real PostgreSQL and MariaDB targets: a developer
// without rights asks for access to one production connection, an admin approves, the data patch
// then really runs (the row changes in the target), the grant does not reach the project's other
// connection, and once its time is up the same action is refused again, with the request's audit
// trail. The developer is a project `viewer`: the policy (src/security/policy.ts) lets the project
// role `developer` execute patches everywhere, so `developer` on the connection is what they lack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { targetEngines } from '../../../test/support/engines.ts';
import { newProjectMember } from '../../../test/support/members.ts';
import { waitForRun } from '../../../test/support/operations.ts';
import { closeSuite, createWorkerProject } from '../../../test/support/worker-runs.ts';
import { createApprovalExpiry } from '../approvals/expiry-pass.ts';

const API = '/api/v1';
const MINUTE = 60_000;
const FINISHED = ['succeeded', 'failed', 'cancelled'];
const NEEDS_DEVELOPER = { detail: 'This action requires the project developer role' };

const engines = await targetEngines('the access scenario (access-scenario.test.ts)');

const ENGINES = [
  {
    ...engines.postgresql,
    schema:
      'create table payouts (id bigint primary key, status text not null, amount integer not null); ' +
      "insert into payouts values (1, 'stuck', 100), (2, 'stuck', 250), (3, 'paid', 75);",
  },
  {
    ...engines.mysql,
    schema:
      'create table payouts (id int primary key, status varchar(20) not null, amount int not null); ' +
      "insert into payouts values (1, 'stuck', 100), (2, 'stuck', 250), (3, 'paid', 75);",
  },
];

describe('just-in-time access to a production connection, end to end', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let admin: Client;
  let developer: Client;
  let projectId: string;
  let expire: ReturnType<typeof createApprovalExpiry>;
  const databases: { drop(): Promise<void> }[] = [];

  beforeAll(async () => {
    ({ t, orgId, owner, projectId } = await createWorkerProject({
      org: 'Payments Inc',
      project: 'Payouts',
    }));
    admin = await newProjectMember(t, orgId, owner, projectId, 'admin');
    developer = await newProjectMember(t, orgId, owner, projectId, 'viewer');
    expire = createApprovalExpiry({
      db: t.store.db,
      audit: t.composition.audit,
      logger: { info() {}, warn() {}, error() {} },
      now: t.now,
    });
  });
  afterAll(() => closeSuite(t, databases));

  /** The actions audited on a target, oldest first, with who did them. */
  async function trail(targetId: string): Promise<{ action: string; actor_id: string | null }[]> {
    const entries = (await owner.get(`${API}/audit?project_id=${projectId}&page_size=200`)).body.items;
    return entries
      .filter((e: { target_id: string }) => e.target_id === targetId)
      .map(({ action, actor_id }: { action: string; actor_id: string | null }) => ({ action, actor_id }))
      .reverse();
  }

  for (const engine of ENGINES) {
    describe(`on ${engine.name}`, { skip: !engine.up }, () => {
      let url: string;
      let production: string;
      let reporting: string;
      const rows = async () =>
        (await engine.query(url, 'select id, status from payouts order by id')).map((r) => [
          Number(r.id),
          r.status,
        ]);
      const patch = (client: Client, connectionId: string, sql: string) =>
        client.post(`${API}/patches`, {
          project_id: projectId,
          connection_id: connectionId,
          title: 'Release stuck payouts',
          sql,
        });
      const execute = (client: Client, patchId: string) =>
        client.post(`${API}/patches/${patchId}/execute`, { expected_rows: 1 });

      beforeAll(async () => {
        const database = await engine.create();
        databases.push(database);
        url = database.url;
        await engine.load(url, engine.schema);
        const connection = async (name: string, environment: string) => {
          const created = await owner.post(
            `${API}/connections`,
            connectionBody(projectId, url, { name: `${engine.name} ${name}`, environment }),
          );
          expect(created.status).toBe(201);
          return created.body;
        };
        const prod = await connection('production', 'production');
        expect(prod.protected).toBe(true);
        production = prod.id;
        // The same project's other connection (to the same database, so the check below that
        // nothing changed covers both).
        reporting = (await connection('reporting', 'development')).id;
      });

      it('a developer without rights asks, an admin approves, the patch runs, and after expiry it is refused', async () => {
        // Drafted by the project admin: creating a patch checks the project-wide role, which a grant
        // on one connection does not raise. The developer may read it but not run it.
        const first = await patch(admin, production, "UPDATE payouts SET status = 'released' WHERE id = 1");
        expect(first.status).toBe(201);
        const later = await patch(admin, production, "UPDATE payouts SET status = 'released' WHERE id = 2");
        const elsewhere = await patch(
          admin,
          reporting,
          "UPDATE payouts SET status = 'released' WHERE id = 2",
        );
        expect((await developer.get(`${API}/patches/${first.body.id}`)).status).toBe(200);
        const before = await execute(developer, first.body.id);
        expect(before.status).toBe(403);
        expect(before.body).toEqual(NEEDS_DEVELOPER);
        expect((await developer.post(`${API}/patches/${first.body.id}/dry-run`)).status).toBe(403);

        // The request, limited to the production connection.
        const asked = await developer.post(`${API}/projects/${projectId}/access-requests`, {
          role: 'developer',
          connection_id: production,
          duration_minutes: 60,
          reason: 'Incident 4711: release stuck payouts',
        });
        expect(asked.status).toBe(201);
        const request = asked.body;
        expect(request).toMatchObject({
          user_id: developer.user.id,
          role: 'developer',
          connection_id: production,
          status: 'pending',
          approval: { kind: 'access_request', status: 'pending', requested_by: developer.user.id },
        });
        expect((await execute(developer, first.body.id)).status).toBe(403);
        const selfDecided = await developer.patch(`${API}/approvals/${request.approval_id}`, {
          decision: 'approve',
        });
        expect(selfDecided.status).toBe(403);

        const approved = await admin.patch(`${API}/approvals/${request.approval_id}`, {
          decision: 'approve',
          comment: 'One hour, production payouts only',
        });
        expect(approved.status).toBe(200);
        expect(approved.body).toMatchObject({
          status: 'approved',
          decisions: [{ user_id: admin.user.id, decision: 'approve' }],
        });
        const active = (await developer.get(`${API}/access-requests/${request.id}`)).body;
        expect(active.status).toBe('active');
        expect(Date.parse(active.expires_at) - Date.parse(active.activated_at)).toBe(60 * MINUTE);

        // The action works: on production the default policy still wants the operation approved
        // (by someone else than the requester), then the run really changes the target.
        const dry = await developer.post(`${API}/patches/${first.body.id}/dry-run`);
        expect(dry.status).toBe(200);
        expect(dry.body.total_affected_rows).toBe(1);
        const started = await execute(developer, first.body.id);
        expect(started.status).toBe(202);
        expect(started.body).toMatchObject({
          kind: 'patch_execute',
          subject_id: first.body.id,
          status: 'awaiting_approval',
        });
        const gate = started.body.approval_id;
        expect((await developer.patch(`${API}/approvals/${gate}`, { decision: 'approve' })).status).toBe(403);
        expect(await rows()).toEqual([
          [1, 'stuck'],
          [2, 'stuck'],
          [3, 'paid'],
        ]);
        const released = await admin.patch(`${API}/approvals/${gate}`, { decision: 'approve' });
        expect(released.status).toBe(200);
        expect(released.body.status).toBe('approved');
        const run = await waitForRun(developer, started.body.id, FINISHED);
        expect(run.error).toBeNull();
        expect(run.status).toBe('succeeded');
        expect(run.result).toMatchObject({ affected_rows: [1], total_affected_rows: 1 });
        expect(await rows()).toEqual([
          [1, 'released'],
          [2, 'stuck'],
          [3, 'paid'],
        ]);
        expect((await developer.get(`${API}/patches/${first.body.id}`)).body.status).toBe('executed');

        // The grant is for the production connection only: not the project's other connection.
        const sibling = await execute(developer, elsewhere.body.id);
        expect(sibling.status).toBe(403);
        expect(sibling.body).toEqual(NEEDS_DEVELOPER);
        expect((await developer.post(`${API}/patches/${elsewhere.body.id}/dry-run`)).status).toBe(403);

        // Past expires_at the expiry job ends the grant; the same action is refused again.
        t.advance(60 * MINUTE + MINUTE);
        expect(await expire()).toEqual({ approvals_expired: 0, grants_expired: 1 });
        const expired = (await developer.get(`${API}/access-requests/${request.id}`)).body;
        expect(expired).toMatchObject({ status: 'expired', ended_at: active.expires_at });
        const after = await execute(developer, later.body.id);
        expect(after.status).toBe(403);
        expect(after.body).toEqual(NEEDS_DEVELOPER);
        expect((await developer.post(`${API}/patches/${later.body.id}/dry-run`)).status).toBe(403);
        expect(await rows()).toEqual([
          [1, 'released'],
          [2, 'stuck'],
          [3, 'paid'],
        ]);
        const runs = (await owner.get(`${API}/runs?project_id=${projectId}&kind=patch_execute`)).body.items;
        const refusedIds = [later.body.id, elsewhere.body.id];
        expect(runs.filter((r: { subject_id: string }) => refusedIds.includes(r.subject_id))).toEqual([]);

        // The trail: requested by the developer, approved by the admin, expired by the job; the
        // patch executed by the developer while the grant held.
        expect(await trail(request.id)).toEqual([
          { action: 'access_request.create', actor_id: developer.user.id },
          { action: 'access_request.activate', actor_id: admin.user.id },
          { action: 'access_request.expire', actor_id: null },
        ]);
        expect(await trail(request.approval_id)).toEqual([
          { action: 'approval.request', actor_id: developer.user.id },
          { action: 'approval.decision', actor_id: admin.user.id },
          { action: 'approval.approve', actor_id: admin.user.id },
        ]);
        expect((await trail(first.body.id)).filter((e) => e.action === 'patch.execute')).toEqual([
          { action: 'patch.execute', actor_id: developer.user.id },
        ]);
      });
    });
  }
});

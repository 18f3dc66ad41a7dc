import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorOf } from '../../../test/support/actors.ts';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { createApprovalExpiry } from '../approvals/expiry-pass.ts';
import { requireProject } from '../projects/projects.access.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe('just-in-time access requests', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let admin: Client;
  let viewer: Client;
  let otherViewer: Client;
  let stranger: Client;
  let projectId: string;
  let expire: ReturnType<typeof createApprovalExpiry>;

  const base = () => `/api/v1/projects/${projectId}/access-requests`;
  const ask = (client: Client, body: Record<string, unknown> = {}) =>
    client.post(base(), {
      role: 'admin',
      duration_minutes: 60,
      reason: 'Incident 4711: fix stuck payouts',
      ...body,
    });
  const renameAs = (client: Client, name: string) => client.patch(`/api/v1/projects/${projectId}`, { name });
  const decide = (client: Client, approvalId: string, decision: 'approve' | 'reject', comment?: string) =>
    client.patch(`/api/v1/approvals/${approvalId}`, { decision, ...(comment && { comment }) });

  async function member(role: 'admin' | 'developer' | 'viewer'): Promise<Client> {
    const client = await t.createUser(orgId, 'member');
    await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: client.user.id, role });
    return client;
  }

  /** The actions audited on a target, oldest first. */
  async function actions(targetId: string): Promise<string[]> {
    const entries = (await owner.get(`/api/v1/audit?project_id=${projectId}&page_size=200`)).body.items;
    return entries
      .filter((e: { target_id: string }) => e.target_id === targetId)
      .map((e: { action: string }) => e.action)
      .reverse();
  }

  /** Sessions last a day: after moving the clock that far, everyone signs in again. */
  async function signInAgain() {
    owner = await t.login(owner.user.email);
    admin = await t.login(admin.user.email);
    viewer = await t.login(viewer.user.email);
    otherViewer = await t.login(otherViewer.user.email);
    stranger = await t.login(stranger.user.email);
  }

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Access'));
    ({ owner: stranger } = await t.createOrg('Elsewhere'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Ledger' })).body.id;
    admin = await member('admin');
    viewer = await member('viewer');
    otherViewer = await member('viewer');
    expire = createApprovalExpiry({
      db: t.store.db,
      audit: t.composition.audit,
      logger: { info() {}, warn() {}, error() {} },
      now: t.now,
    });
  });
  afterAll(() => t.close());

  it('a viewer asks for admin, an admin approves, the role applies, and it expires', async () => {
    expect((await renameAs(viewer, 'Renamed by a viewer')).status).toBe(403);
    const created = await ask(viewer);
    expect(created.status).toBe(201);
    const request = created.body;
    expect(request).toEqual({
      id: expect.any(String),
      project_id: projectId,
      user_id: viewer.user.id,
      role: 'admin',
      connection_id: null,
      duration_minutes: 60,
      reason: 'Incident 4711: fix stuck payouts',
      status: 'pending',
      approval_id: request.approval.id,
      approval: {
        id: expect.any(String),
        project_id: projectId,
        kind: 'access_request',
        subject_id: request.id,
        requested_by: viewer.user.id,
        status: 'pending',
        required_approvals: 1,
        decisions: [],
        content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_at: expect.stringMatching(TIMESTAMP),
        expires_at: expect.stringMatching(TIMESTAMP),
        subject: {
          kind: 'access_request',
          id: request.id,
          title: 'admin access for 60 minutes',
          connection: null,
          summary: 'Incident 4711: fix stuck payouts',
        },
        requester: { id: viewer.user.id, email: viewer.user.email, name: viewer.user.name },
        can_decide: false,
      },
      created_at: expect.stringMatching(TIMESTAMP),
      activated_at: null,
      expires_at: null,
      ended_at: null,
      revoked_by: null,
    });
    expect(Date.parse(request.approval.expires_at) - Date.parse(request.approval.created_at)).toBe(24 * HOUR);
    expect((await owner.get(`/api/v1/projects/${projectId}`)).body.pending_approvals).toBe(1);
    expect((await renameAs(viewer, 'Still a viewer')).status).toBe(403);

    expect((await admin.get(`/api/v1/approvals/${request.approval_id}`)).body.can_decide).toBe(true);
    const approved = await decide(admin, request.approval_id, 'approve', 'Go ahead');
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('approved');
    const active = (await viewer.get(`/api/v1/access-requests/${request.id}`)).body;
    expect(active).toMatchObject({ status: 'active', approval: { status: 'approved' } });
    expect(Date.parse(active.expires_at) - Date.parse(active.activated_at)).toBe(HOUR);
    expect((await owner.get(`/api/v1/projects/${projectId}`)).body.pending_approvals).toBe(0);

    // The grant adds the admin role: sessions and the holder's keys (scope ∩ roles) alike.
    expect((await renameAs(viewer, 'Renamed under a grant')).status).toBe(200);
    const writeKey = await t.keyClient(viewer, ['write']);
    expect((await renameAs(writeKey, 'Renamed by a key under a grant')).status).toBe(200);
    expect((await renameAs(otherViewer, 'Not granted')).status).toBe(403);

    t.advance(HOUR + MINUTE);
    expect(await expire()).toEqual({ approvals_expired: 0, grants_expired: 1 });
    const expired = (await viewer.get(`/api/v1/access-requests/${request.id}`)).body;
    expect(expired).toMatchObject({ status: 'expired', ended_at: active.expires_at });
    const refused = await renameAs(viewer, 'After the grant');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'This action requires the project admin role' });

    expect(await actions(request.id)).toEqual([
      'access_request.create',
      'access_request.activate',
      'access_request.expire',
    ]);
    expect(await actions(request.approval_id)).toEqual([
      'approval.request',
      'approval.decision',
      'approval.approve',
    ]);
  });

  it('revocation removes the role at once: by an admin, or by the holder; others may not', async () => {
    const request = (await ask(viewer)).body;
    await decide(owner, request.approval_id, 'approve');
    expect((await renameAs(viewer, 'Granted again')).status).toBe(200);

    const notYours = await otherViewer.post(`/api/v1/access-requests/${request.id}/revoke`);
    expect(notYours.status).toBe(403);
    expect(notYours.body).toEqual({
      detail: 'Only the holder of the grant or a project admin can revoke it',
    });
    const revoked = await admin.post(`/api/v1/access-requests/${request.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_by: admin.user.id });
    expect(revoked.body.ended_at).toMatch(TIMESTAMP);
    expect((await renameAs(viewer, 'Revoked')).status).toBe(403);
    const again = await admin.post(`/api/v1/access-requests/${request.id}/revoke`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      detail: 'The access request is revoked; only an active grant can be revoked',
    });

    const own = (await ask(viewer, { role: 'developer' })).body;
    await decide(admin, own.approval_id, 'approve');
    const givenUp = await viewer.post(`/api/v1/access-requests/${own.id}/revoke`);
    expect(givenUp.status).toBe(200);
    expect(givenUp.body).toMatchObject({ status: 'revoked', revoked_by: viewer.user.id });
    expect(await actions(request.id)).toEqual([
      'access_request.create',
      'access_request.activate',
      'access_request.revoke',
    ]);
  });

  it('a grant counts only while its holder is a member of the project', async () => {
    const holder = await member('viewer');
    const request = (await ask(holder)).body;
    await decide(admin, request.approval_id, 'approve');
    expect((await renameAs(holder, 'Granted')).status).toBe(200);
    expect((await owner.delete(`/api/v1/projects/${projectId}/members/${holder.user.id}`)).status).toBe(204);
    expect((await renameAs(holder, 'Removed')).status).toBe(404);
    expect((await holder.get(`/api/v1/projects/${projectId}`)).status).toBe(404);
  });

  it('a rejection leaves the role as it was', async () => {
    const request = (await ask(viewer)).body;
    const rejected = await decide(admin, request.approval_id, 'reject', 'Use the runbook instead');
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      decisions: [{ user_id: admin.user.id, decision: 'reject', comment: 'Use the runbook instead' }],
    });
    const body = (await viewer.get(`/api/v1/access-requests/${request.id}`)).body;
    expect(body).toMatchObject({ status: 'rejected', activated_at: null, expires_at: null });
    expect(body.ended_at).toMatch(TIMESTAMP);
    expect((await renameAs(viewer, 'Rejected')).status).toBe(403);
    expect((await admin.post(`/api/v1/access-requests/${request.id}/revoke`)).status).toBe(409);
    expect(await actions(request.id)).toEqual(['access_request.create', 'access_request.reject']);
  });

  it('a request left undecided for 24 hours expires with its approval', async () => {
    const request = (await ask(viewer)).body;
    t.advance(23 * HOUR);
    // Only the grant of the member removed in the test before ends here.
    expect(await expire()).toEqual({ approvals_expired: 0, grants_expired: 1 });
    t.advance(HOUR + MINUTE);
    expect(await expire()).toEqual({ approvals_expired: 1, grants_expired: 0 });
    await signInAgain();
    const body = (await viewer.get(`/api/v1/access-requests/${request.id}`)).body;
    expect(body).toMatchObject({ status: 'expired', activated_at: null, approval: { status: 'expired' } });
    const late = await decide(admin, request.approval_id, 'approve');
    expect(late.status).toBe(409);
    expect(late.body).toEqual({ detail: 'The approval is expired' });
    expect((await renameAs(viewer, 'Too late')).status).toBe(403);
    expect(await actions(request.id)).toEqual(['access_request.create', 'access_request.expire']);
    expect(await actions(request.approval_id)).toEqual(['approval.request', 'approval.expire']);
  });

  it('refuses pointless, duplicate and malformed requests', async () => {
    const already = await ask(admin);
    expect(already.status).toBe(409);
    expect(already.body).toEqual({ detail: 'You already have the admin role here' });
    expect((await ask(owner, { role: 'viewer' })).status).toBe(409);
    expect((await ask(viewer, { role: 'viewer' })).status).toBe(409);

    const first = await ask(otherViewer, { role: 'developer' });
    expect(first.status).toBe(201);
    const duplicate = await ask(otherViewer, { role: 'developer', reason: 'Asking twice' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ detail: 'The same access request is already pending' });

    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ duration_minutes: 0 }, ['body', 'duration_minutes']],
      [{ duration_minutes: 24 * 60 + 1 }, ['body', 'duration_minutes']],
      [{ role: 'owner' }, ['body', 'role']],
      [{ reason: '   ' }, ['body', 'reason']],
      [{ extra: true }, ['body', 'extra']],
      [{ connection_id: 'nope' }, ['body', 'connection_id']],
      [{ connection_id: randomUUID() }, ['body', 'connection_id']],
    ];
    for (const [body, loc] of cases) {
      const response = await ask(viewer, { role: 'developer', ...body });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(loc);
    }
  });

  it('a grant on one connection counts only for that connection', async () => {
    const connection = async (project: string) => {
      const id = randomUUID();
      await t.store.db
        .insertInto('connections')
        .values({
          id,
          org_id: orgId,
          project_id: project,
          name: `db-${id.slice(0, 8)}`,
          dialect: 'postgresql',
          host: '127.0.0.1',
          port: 5432,
          database: 'app',
          username: 'app',
          password: 'v1.sealed.elsewhere',
          ssl_mode: 'disable',
          ca_cert: null,
          environment: 'production',
          protected: true,
        })
        .execute();
      return id;
    };
    const mine = await connection(projectId);
    const sibling = await connection(projectId);
    const otherProject = (await owner.post('/api/v1/projects', { name: 'Elsewhere in the org' })).body.id;
    const foreign = await connection(otherProject);

    const wrong = await ask(viewer, { role: 'developer', connection_id: foreign });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail).toEqual([
      { loc: ['body', 'connection_id'], msg: 'No such connection in this project', type: 'value_error' },
    ]);
    const request = await ask(viewer, { role: 'developer', connection_id: mine });
    expect(request.status).toBe(201);
    expect(request.body.connection_id).toBe(mine);
    await decide(admin, request.body.approval_id, 'approve');

    const actor = actorOf(viewer, orgId);
    const check = (connectionId?: string) =>
      requireProject(
        t.store.db,
        actor,
        projectId,
        'connection.test',
        connectionId ? { connectionId } : {},
      ).then(
        () => 'allowed',
        (error) => error.detail,
      );
    expect(await check(mine)).toBe('allowed');
    expect(await check(sibling)).toBe('This action requires the project developer role');
    expect(await check()).toBe('This action requires the project developer role');
    // Asking again for the same connection is pointless while the grant is active.
    expect((await ask(viewer, { role: 'developer', connection_id: mine })).status).toBe(409);
  });

  it('lists the requests of a project, newest first, to its members only', async () => {
    const list = await otherViewer.get(`${base()}?page_size=3`);
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(3);
    expect(list.body.total).toBeGreaterThanOrEqual(8);
    expect(list.body.items[0].approval.kind).toBe('access_request');
    const times = list.body.items.map((r: { created_at: string }) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const revoked = await owner.get(`${base()}?status=revoked`);
    expect(revoked.body.total).toBe(2);
    expect(revoked.body.items.every((r: { status: string }) => r.status === 'revoked')).toBe(true);
    expect((await owner.get(`${base()}?status=granted`)).status).toBe(422);
  });

  it('authorizes every route: 401 without credentials, 403 for role or scope, 404 elsewhere', async () => {
    const request = (await ask(otherViewer, { role: 'admin' })).body;
    const one = `/api/v1/access-requests/${request.id}`;
    const revoke = `${one}/revoke`;
    for (const response of [
      await t.anonymous.post(base(), { role: 'admin', duration_minutes: 5, reason: 'x' }),
      await t.anonymous.get(base()),
      await t.anonymous.get(one),
      await t.anonymous.post(revoke),
    ]) {
      expect(response.status).toBe(401);
    }

    const readKey = await t.keyClient(viewer, ['read']);
    expect((await readKey.get(one)).status).toBe(200);
    expect((await readKey.get(base())).status).toBe(200);
    for (const response of [
      await readKey.post(base(), { role: 'admin', duration_minutes: 5, reason: 'x' }),
      await readKey.post(revoke),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ detail: "This API key lacks the 'write' scope" });
    }
    const adminReadKey = await t.keyClient(admin, ['read']);
    expect(
      (await adminReadKey.patch(`/api/v1/approvals/${request.approval_id}`, { decision: 'approve' })).status,
    ).toBe(403);

    const outsider = await t.createUser(orgId, 'member');
    for (const client of [stranger, outsider]) {
      const created = await client.post(base(), { role: 'admin', duration_minutes: 5, reason: 'x' });
      expect(created.status).toBe(404);
      expect(created.body).toEqual({ detail: 'Project not found' });
      expect((await client.get(base())).status).toBe(404);
      for (const response of [await client.get(one), await client.post(revoke)]) {
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ detail: 'Access request not found' });
      }
    }
    expect((await owner.get(`/api/v1/access-requests/${randomUUID()}`)).status).toBe(404);
    expect((await owner.get('/api/v1/access-requests/not-a-uuid')).status).toBe(422);
    expect((await owner.get(one)).body.status).toBe('pending');
  });

  it('goes with its project: deleting the project deletes its requests and approvals', async () => {
    const project = (await owner.post('/api/v1/projects', { name: 'Short-lived' })).body.id;
    await owner.post(`/api/v1/projects/${project}/members`, { user_id: viewer.user.id, role: 'viewer' });
    const pending = await viewer.post(`/api/v1/projects/${project}/access-requests`, {
      role: 'developer',
      duration_minutes: 5,
      reason: 'One look',
    });
    expect(pending.status).toBe(201);
    expect((await owner.delete(`/api/v1/projects/${project}`)).status).toBe(204);
    expect((await owner.get(`/api/v1/access-requests/${pending.body.id}`)).status).toBe(404);
    expect((await owner.get(`/api/v1/approvals/${pending.body.approval_id}`)).status).toBe(404);
  });
});

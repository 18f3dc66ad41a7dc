// The world of the authorization matrix (test/e2e/authorization-matrix.test.ts): one organization on
// the Enterprise plan (drift is in its plan, so a 403 can only come from a role or a scope), one
// project with a member of each project role, one of every resource a route can name (connections
// to a real PostgreSQL database, a patch, a run, an approval, …), the callers (nobody, a revoked key,
// a deactivated user's session, sessions of each organization and project role, just-in-time grants
// on the project and on one connection, keys of each scope, a foreign organization's owner), and
// fresh resources for the calls that would use up a shared one (a DELETE, a purge).
import { expect } from 'vitest';
import { updateOrgPlan } from '../../src/modules/billing/billing.repo.ts';
import type { OrgRole, ProjectRole, Scope } from '../../src/store/tables.ts';
import type { Client, Response, TestApp } from './app.ts';
import type { Caller, Kind, Tag, World } from './authz-world.ts';
import { connectionBody } from './connections.ts';
import { IDP_CERTIFICATE } from './saml-idp.ts';
import { queryPostgres } from './target-query.ts';

let counter = 0;
const unique = (tag: string) => `${tag}-${++counter}-${Date.now().toString(36)}`;

async function created(response: Promise<Response>, what: string): Promise<Response> {
  const answer = await response;
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer;
}

/**
 * `targetUrl` and `otherTargetUrl` are two empty PostgreSQL databases: the fixture project's
 * connections reach the first, its second connection (the target of compare and bridge, which
 * refuse a copy onto the same database) the other.
 */
export async function buildWorld(t: TestApp, targetUrl: string, otherTargetUrl: string): Promise<World> {
  await queryPostgres(
    targetUrl,
    `create table people (id int primary key, email text, name text);
     insert into people select g, 'p' || g || '@example.com', 'Person ' || g from generate_series(1, 20) g`,
  );
  const { orgId, owner } = await t.createOrg('Matrix');
  const { orgId: strangerOrgId, owner: stranger } = await t.createOrg('Elsewhere');
  // Both on the plan with every feature: a 403 must come from a role or a scope, not from the plan.
  for (const id of [orgId, strangerOrgId])
    await updateOrgPlan(
      t.store.db,
      id,
      { plan: 'enterprise', rate_limit_per_minute: null, rate_limit_per_hour: null },
      new Date(),
    );
  const [
    admin,
    member,
    projectAdmin,
    developer,
    viewer,
    bystander,
    outsider,
    granted,
    scoped,
    scopedOther,
    deactivated,
  ] = await Promise.all([
    t.createUser(orgId, 'admin'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
    t.createUser(orgId, 'member'),
  ]);
  const API = '/api/v1';
  const projectId = (await created(owner.post(`${API}/projects`, { name: unique('project') }), 'project'))
    .body.id as string;
  const addMember = (project: string, userId: string, role: ProjectRole) =>
    created(owner.post(`${API}/projects/${project}/members`, { user_id: userId, role }), 'membership');
  for (const [client, role] of [
    [projectAdmin, 'admin'],
    [developer, 'developer'],
    [viewer, 'viewer'],
    [bystander, 'viewer'],
    [granted, 'viewer'],
    [scoped, 'viewer'],
    [scopedOther, 'viewer'],
  ] as const)
    await addMember(projectId, client.user.id, role);
  // Viewers raised to developer by approved just-in-time grants (docs/contract.md §10), on the whole project or
  // on one connection only: developers there while the grant lasts.
  const grant = async (client: Client, connectionId?: string) => {
    const asked = await created(
      client.post(`${API}/projects/${projectId}/access-requests`, {
        role: 'developer',
        duration_minutes: 600,
        reason: 'the matrix',
        ...(connectionId && { connection_id: connectionId }),
      }),
      'grant request',
    );
    await created(
      owner.patch(`${API}/approvals/${asked.body.approval_id}`, { decision: 'approve' }),
      'grant',
    );
  };
  // A user deactivated after signing in: the session it still holds is no credential any more.
  await created(owner.patch(`${API}/users/${deactivated.user.id}`, { active: false }), 'deactivation');

  const tags = new Map<string, Tag>();
  const tagged = (inProject: boolean, connection?: string) => (id: string) => {
    tags.set(id, { inProject, ...(connection && { connection }) });
    return id;
  };
  const inProject = tagged(true);
  const inOrg = tagged(false);
  inProject(projectId);

  const connection = async (environment = 'development', url = targetUrl) =>
    (
      await created(
        owner.post(`${API}/connections`, connectionBody(projectId, url, { environment })),
        'connection',
      )
    ).body.id as string;
  const connectionId = await connection();
  const otherConnectionId = await connection('development', otherTargetUrl);
  /** Resources that work on the first connection, and on the second. */
  const onFirst = tagged(true, connectionId);
  const onOther = tagged(true, otherConnectionId);
  onFirst(connectionId);
  onOther(otherConnectionId);
  await grant(granted);
  await grant(scoped, connectionId);
  // On the second connection: what migrations and copies write to, from the first (which it may not read out of).
  await grant(scopedOther, otherConnectionId);
  const productionId = await connection('production');

  const patchBody = (connection: string) => ({
    project_id: projectId,
    connection_id: connection,
    title: unique('patch'),
    sql: "UPDATE people SET name = 'Renamed' WHERE id = 1",
  });
  const post = async (client: Client, url: string, body: unknown, what: string) =>
    (await created(client.post(`${API}${url}`, body), what)).body.id as string;
  const patchId = onFirst(await post(owner, '/patches', patchBody(connectionId), 'patch'));
  const seedBody = () => ({
    project_id: projectId,
    connection_id: connectionId,
    name: unique('seed'),
    definition: { tables: [{ table: 'people', rows: 2 }] },
    seed: 1,
  });
  const anonymizeBody = () => ({
    project_id: projectId,
    connection_id: connectionId,
    name: unique('anonymize'),
    rules: [{ table: 'people', column: 'email', transformer: 'hash' }],
  });
  const webhookBody = () => ({ url: 'http://127.0.0.1:9/hook', events: ['*'] });
  const sinkBody = () => ({ type: 'http', url: 'http://127.0.0.1:9/audit' });
  const samlBody = () => ({
    idp_entity_id: 'https://idp.example.com/matrix',
    idp_sso_url: 'https://idp.example.com/sso',
    idp_certificate: IDP_CERTIFICATE,
  });
  const runId = inProject(
    (await created(owner.post(`${API}/patches/${patchId}/execute`, {}), 'run')).body.id as string,
  );
  // An approval asked by the developer (who may not decide it), for a patch on a protected connection.
  const guarded = await post(developer, '/patches', patchBody(productionId), 'guarded patch');
  const awaiting = await created(developer.post(`${API}/patches/${guarded}/execute`, {}), 'guarded run');
  const approvalId = inProject(awaiting.body.approval_id as string);
  // An access request of the viewer, never decided: granting it would change the viewer's role.
  const accessRequestId = inProject(
    await post(
      viewer,
      `/projects/${projectId}/access-requests`,
      { role: 'developer', duration_minutes: 30, reason: 'the matrix' },
      'access request',
    ),
  );
  const snapshotId = onFirst(
    await post(owner, `/connections/${connectionId}/snapshots`, undefined, 'snapshot'),
  );
  // A drift report: the first visit takes the baseline, then the schema changes under it.
  await created(owner.get(`${API}/connections/${connectionId}/drift`), 'drift baseline');
  await queryPostgres(targetUrl, 'alter table people add column nickname text');
  const check = await created(
    owner.post(`${API}/connections/${connectionId}/drift/check`, {}),
    'drift check',
  );
  const driftId = onFirst(check.body.report.id as string);
  const migrationId = await post(
    owner,
    `/projects/${projectId}/migrations/compare`,
    { source_connection_id: connectionId, target_connection_id: otherConnectionId },
    'migration',
  );
  // Applied to the second connection, after the first's schema: its runs touch both.
  tags.set(migrationId, { inProject: true, connection: otherConnectionId, reads: connectionId });
  const webhookId = inProject(await post(owner, `/projects/${projectId}/webhooks`, webhookBody(), 'webhook'));
  const seedId = onFirst(await post(owner, '/seed/scenarios', seedBody(), 'seed'));
  const anonymizeId = onFirst(await post(owner, '/anonymize/configs', anonymizeBody(), 'anonymize'));
  const sinkId = inOrg(await post(owner, '/admin/audit-export/sinks', sinkBody(), 'sink'));
  await created(owner.put(`${API}/admin/saml`, samlBody()), 'SAML configuration');

  const [readKey, writeKey, adminKey, developerKey, revokedKey] = await Promise.all([
    t.keyClient(owner, ['read']),
    t.keyClient(owner, ['write']),
    t.keyClient(owner, ['admin']),
    t.keyClient(developer, ['admin']),
    t.keyClient(owner, ['admin']),
  ]);
  await created(owner.delete(`${API}/api-keys/${revokedKey.keyId}`), 'key revocation');
  const session = (name: string, client: Client, orgRole: OrgRole, projectRole: ProjectRole | null) =>
    ({
      name,
      client,
      via: 'session',
      scopes: null,
      orgRole,
      projectRole,
      foreign: false,
      self: client,
    }) as const;
  const key = (name: string, client: Client, scopes: Scope[], of: Client, projectRole: ProjectRole | null) =>
    ({
      name,
      client,
      via: 'key',
      scopes,
      orgRole: of.user.org_role,
      projectRole,
      foreign: false,
      self: of,
    }) as const;
  const callers: Caller[] = [
    {
      name: 'nobody',
      client: t.anonymous,
      via: 'none',
      scopes: null,
      orgRole: null,
      projectRole: null,
      foreign: false,
      self: null,
    },
    // A revoked key is no credential at all, whatever its scopes and its owner's roles were.
    {
      name: 'revoked key',
      client: revokedKey,
      via: 'none',
      scopes: null,
      orgRole: null,
      projectRole: null,
      foreign: false,
      self: null,
    },
    session('org owner', owner, 'owner', null),
    session('org admin', admin, 'admin', null),
    session('org member, not in the project', member, 'member', null),
    session('project admin', projectAdmin, 'member', 'admin'),
    session('project developer', developer, 'member', 'developer'),
    session('project viewer', viewer, 'member', 'viewer'),
    session('project viewer with a developer grant', granted, 'member', 'developer'),
    {
      ...session('project viewer with a developer grant on one connection', scoped, 'member', 'viewer'),
      connectionGrant: { role: 'developer', connectionId },
    },
    {
      ...session(
        'project viewer with a developer grant on the other connection',
        scopedOther,
        'member',
        'viewer',
      ),
      connectionGrant: { role: 'developer', connectionId: otherConnectionId },
    },
    { ...session("a deactivated user's session", deactivated, 'member', null), orgRole: null, self: null },
    key("owner's read key", readKey, ['read'], owner, null),
    key("owner's write key", writeKey, ['write'], owner, null),
    key("owner's admin key", adminKey, ['admin'], owner, null),
    // A key never exceeds its owner: the developer's admin key acts as a developer.
    key("developer's admin key", developerKey, ['admin'], developer, 'developer'),
    { ...session('owner of another organization', stranger, 'owner', null), foreign: true },
  ];

  // Each session caller's own API key (keys are personal: another user's key is not found).
  const ownKeys = new Map<string, string>([
    [owner.user.id, adminKey.keyId],
    [developer.user.id, developerKey.keyId],
  ]);
  for (const caller of callers)
    if (caller.self && !ownKeys.has(caller.self.user.id))
      ownKeys.set(
        caller.self.user.id,
        await post(caller.self, '/api-keys', { name: unique('key'), scopes: ['read'] }, 'own key'),
      );
  for (const [userId, keyId] of ownKeys) if (userId !== stranger.user.id) inOrg(keyId);

  const deletedUser = async () => {
    const user = await t.createUser(orgId, 'member');
    await created(owner.delete(`${API}/users/${user.user.id}`), 'user deletion');
    return user.user.id;
  };
  const freshMaker: Partial<Record<Kind, (caller: Caller) => Promise<string>>> = {
    async project(caller) {
      const id = await post(owner, '/projects', { name: unique('project') }, 'project');
      // The caller holds the same role here as in the fixture project.
      if (caller.self && caller.projectRole) await addMember(id, caller.self.user.id, caller.projectRole);
      return id;
    },
    async member() {
      const user = await t.createUser(orgId, 'member');
      await addMember(projectId, user.user.id, 'viewer');
      return user.user.id;
    },
    outsider: async () => (await t.createUser(orgId, 'member')).user.id,
    connection: () => connection(),
    protectedConnection: () => connection('production'),
    patch: () => post(owner, '/patches', patchBody(connectionId), 'patch'),
    seed: () => post(owner, '/seed/scenarios', seedBody(), 'seed'),
    anonymize: () => post(owner, '/anonymize/configs', anonymizeBody(), 'anonymize'),
    webhook: () => post(owner, `/projects/${projectId}/webhooks`, webhookBody(), 'webhook'),
    sink: () => post(owner, '/admin/audit-export/sinks', sinkBody(), 'sink'),
    user: async () => (await t.createUser(orgId, 'member')).user.id,
    deletedUser,
    // Its own: a key of the caller's user (of the fixture owner for the foreign caller).
    apiKey: (caller) =>
      post(
        caller.foreign || !caller.self ? owner : caller.self,
        '/api-keys',
        { name: unique('key'), scopes: ['read'] },
        'key',
      ),
  };
  const projectKinds = new Set<Kind>([
    'project',
    'connection',
    'protectedConnection',
    'patch',
    'seed',
    'anonymize',
    'webhook',
  ]);
  const connectionKinds = new Set<Kind>(['connection', 'protectedConnection']);
  const onFirstKinds = new Set<Kind>(['patch', 'seed', 'anonymize']);

  const ids: Record<Kind, string> = {
    project: projectId,
    member: inOrg(bystander.user.id),
    outsider: inOrg(outsider.user.id),
    connection: connectionId,
    protectedConnection: tagged(true, productionId)(productionId),
    snapshot: snapshotId,
    drift: driftId,
    run: runId,
    approval: approvalId,
    accessRequest: accessRequestId,
    migration: migrationId,
    patch: patchId,
    seed: seedId,
    anonymize: anonymizeId,
    webhook: webhookId,
    sink: sinkId,
    user: inOrg(bystander.user.id),
    deletedUser: inOrg(await deletedUser()),
    apiKey: adminKey.keyId,
  };

  return {
    t,
    orgId,
    projectId,
    targetUrl,
    ids,
    otherConnectionId,
    callers,
    tags,
    bodies: {
      patch: patchBody,
      seed: seedBody,
      anonymize: anonymizeBody,
      webhook: webhookBody,
      sink: sinkBody,
      saml: samlBody,
    },
    accessRequestHolder: viewer.user.id,
    async fresh(kind, caller) {
      const make = freshMaker[kind];
      if (!make) throw new Error(`no fresh ${kind}: no route used one up before; add its maker here`);
      const id = await make(caller);
      // A member or a user is the organization's; a member route names its project by :pid.
      const connection = connectionKinds.has(kind) ? id : onFirstKinds.has(kind) ? connectionId : undefined;
      tagged(projectKinds.has(kind), connection)(id);
      return id;
    },
    shared(kind, caller) {
      if (kind !== 'apiKey' || caller.foreign || !caller.self) return ids[kind];
      return ownKeys.get(caller.self.user.id) ?? ids.apiKey;
    },
  };
}

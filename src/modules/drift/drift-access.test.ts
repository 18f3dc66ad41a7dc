// Who may use drift detection: Enterprise only (Starter and Pro get the 403 of docs/contract.md §2 on every
// route), authenticated (401), within the organization and the project (404 otherwise), with the
// project role and key scope each route needs, and validated input (422).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { loadPostgresSql } from '../../../test/support/corpus.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../../test/support/databases.ts';
import { newProjectMember } from '../../../test/support/members.ts';
import { freePort } from '../../../test/support/targets.ts';
import type { Plan } from '../../store/tables.ts';
import { updateOrgPlan } from '../billing/billing.repo.ts';

const API = '/api/v1';
const MISSING = '00000000-0000-4000-8000-000000000000';
const PLAN_REFUSED = { detail: 'Drift detection requires the Enterprise plan' };

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('drift authorization (drift-access.test.ts)', 'PostgreSQL', testPgUrl);

/** Every drift route, for a connection and a report. */
function routes(cid: string, reportId: string, projectId: string) {
  return [
    ['GET', `${API}/connections/${cid}/drift`],
    ['POST', `${API}/connections/${cid}/drift/check`],
    ['GET', `${API}/drifts`],
    ['GET', `${API}/drifts?project_id=${projectId}`],
    ['GET', `${API}/drifts?connection_id=${cid}`],
    ['GET', `${API}/drifts/${reportId}`],
    ['POST', `${API}/drifts/${reportId}/acknowledge`],
  ] as const;
}

describe('drift authorization', { skip: !pgUp }, () => {
  let t: TestApp;
  let database: TestPgDatabase;
  let acme: { orgId: string; owner: Client };
  let other: Client;
  let projectId: string;
  let cid: string;
  let reportId: string;

  const setPlan = (orgId: string, plan: Plan) =>
    updateOrgPlan(
      t.store.db,
      orgId,
      { plan, rate_limit_per_minute: null, rate_limit_per_hour: null },
      new Date(),
    );
  const member = (role: 'viewer' | 'developer' | 'admin') =>
    newProjectMember(t, acme.orgId, acme.owner, projectId, role);

  beforeAll(async () => {
    t = await createTestApp({ targets: { connectTimeoutMs: 3_000 } });
    acme = await t.createOrg('Acme');
    await setPlan(acme.orgId, 'enterprise');
    const otherOrg = await t.createOrg('Other');
    await setPlan(otherOrg.orgId, 'enterprise');
    other = otherOrg.owner;
    projectId = (await acme.owner.post(`${API}/projects`, { name: 'Guarded' })).body.id;
    database = (await createTestPgDatabase())!;
    await loadPostgresSql(database.url, 'create table t (id int primary key)');
    cid = (await acme.owner.post(`${API}/connections`, connectionBody(projectId, database.url))).body.id;
    expect((await acme.owner.get(`${API}/connections/${cid}/drift`)).status).toBe(200);
    await loadPostgresSql(database.url, 'alter table t add column note text');
    reportId = (await acme.owner.post(`${API}/connections/${cid}/drift/check`)).body.report.id;
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('needs authentication on every route (401)', async () => {
    for (const [method, url] of routes(cid, reportId, projectId)) {
      const response = await t.anonymous.request(method, url);
      expect(response.status, `${method} ${url}`).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('refuses Starter and Pro with the plan text on every route, before any lookup or connect', async () => {
    for (const plan of ['starter', 'pro'] as const) {
      const { orgId, owner } = await t.createOrg(`${plan} org`);
      await setPlan(orgId, plan);
      const project = (await owner.post(`${API}/projects`, { name: 'P' })).body.id;
      const own = await owner.post(
        `${API}/connections`,
        connectionBody(project, `postgres://app@127.0.0.1:${await freePort()}/app`),
      );
      expect(own.body.drift_status).toBe('none');
      // Its own resources, Acme's, and ones that do not exist: the same 403.
      for (const [c, r, p] of [
        [own.body.id, MISSING, project],
        [cid, reportId, projectId],
        [MISSING, MISSING, MISSING],
      ] as const) {
        for (const [method, url] of routes(c, r, p)) {
          const response = await owner.request(method, url);
          expect(response.status, `${plan} ${method} ${url}`).toBe(403);
          expect(response.body).toEqual(PLAN_REFUSED);
        }
      }
      const snapshots = await t.store.db
        .selectFrom('snapshots')
        .where('connection_id', '=', own.body.id)
        .execute();
      expect(snapshots).toEqual([]);
    }
    // A downgrade takes effect at once; the upgrade back too.
    await setPlan(acme.orgId, 'pro');
    expect((await acme.owner.get(`${API}/drifts/${reportId}`)).body).toEqual(PLAN_REFUSED);
    await setPlan(acme.orgId, 'enterprise');
    expect((await acme.owner.get(`${API}/drifts/${reportId}`)).status).toBe(200);
  });

  it('hides other organizations, non-members and unknown ids (404) on every route', async () => {
    const outsider = await t.createUser(acme.orgId, 'member');
    for (const client of [other, outsider]) {
      for (const [method, url] of routes(cid, reportId, projectId)) {
        const response = await client.request(method, url);
        if (url === `${API}/drifts`) {
          expect(response.status).toBe(200);
          expect(response.body).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
          continue;
        }
        expect(response.status, `${method} ${url}`).toBe(404);
        const resource = url.includes('project_id')
          ? 'Project'
          : url.includes('/drifts/')
            ? 'Drift report'
            : 'Connection';
        expect(response.body).toEqual({ detail: `${resource} not found` });
      }
    }
    for (const [method, url] of routes(MISSING, MISSING, MISSING).filter(([, u]) => u !== `${API}/drifts`)) {
      expect((await acme.owner.request(method, url)).status, `${method} ${url}`).toBe(404);
    }
  });

  it('validates ids, filters and the acknowledgement body (422)', async () => {
    const cases = [
      [await acme.owner.get(`${API}/drifts?status=open`), ['query', 'status']],
      [await acme.owner.get(`${API}/drifts?connection_id=nope`), ['query', 'connection_id']],
      [await acme.owner.get(`${API}/drifts/nope`), ['path', 'id']],
      [await acme.owner.get(`${API}/connections/nope/drift`), ['path', 'cid']],
      [await acme.owner.post(`${API}/drifts/${reportId}/acknowledge`, { note: 'x' }), ['body', 'note']],
      [
        await acme.owner.post(`${API}/drifts/${reportId}/acknowledge`, { comment: 'x'.repeat(2001) }),
        ['body', 'comment'],
      ],
    ] as const;
    for (const [response, loc] of cases) {
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(loc);
    }
  });

  it('lets viewers read, developers check, and only project admins acknowledge', async () => {
    const viewer = await member('viewer');
    const developer = await member('developer');
    const admin = await member('admin');
    for (const url of [
      `${API}/connections/${cid}/drift`,
      `${API}/drifts/${reportId}`,
      `${API}/drifts?project_id=${projectId}`,
    ]) {
      expect((await viewer.get(url)).status, url).toBe(200);
    }
    expect((await viewer.get(`${API}/drifts`)).body.items.map((r: { id: string }) => r.id)).toEqual([
      reportId,
    ]);
    const viewerCheck = await viewer.post(`${API}/connections/${cid}/drift/check`);
    expect(viewerCheck.status).toBe(403);
    expect(viewerCheck.body).toEqual({ detail: 'This action requires the project developer role' });
    expect((await developer.post(`${API}/connections/${cid}/drift/check`)).status).toBe(200);
    for (const client of [viewer, developer]) {
      const refused = await client.post(`${API}/drifts/${reportId}/acknowledge`);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: 'This action requires the project admin role' });
    }
    const accepted = await admin.post(`${API}/drifts/${reportId}/acknowledge`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      status: 'acknowledged',
      acknowledged_by: admin.user.id,
      comment: null,
    });
  });

  it('applies key scopes: read reads, write checks', async () => {
    const read = await t.keyClient(acme.owner, ['read']);
    const write = await t.keyClient(acme.owner, ['write']);
    expect((await read.get(`${API}/connections/${cid}/drift`)).status).toBe(200);
    expect((await read.get(`${API}/drifts/${reportId}`)).status).toBe(200);
    const refused = await read.post(`${API}/connections/${cid}/drift/check`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: "This API key lacks the 'write' scope" });
    expect((await read.post(`${API}/drifts/${reportId}/acknowledge`)).status).toBe(403);
    expect((await write.post(`${API}/connections/${cid}/drift/check`)).status).toBe(200);
  });
});

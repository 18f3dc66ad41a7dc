// Who may do what with connections: 401 without credentials, 404 for another organization, a
// non-member and an unknown id, the project roles (viewers read, developers test and snapshot, admins
// change) and the key scopes, on every connection route.
import { beforeAll, describe, expect, it } from 'vitest';
import { connectionBody } from '../../../test/support/connections.ts';
import { connectionsSuite, itNeverShowsAPassword } from '../../../test/support/connections-suite.ts';

const BASE = '/api/v1/connections';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('connections', () => {
  const suite = connectionsSuite();
  const { watch, closedPortConnection } = suite;

  describe('authorization', () => {
    let connection: { id: string; name: string };
    const routes = (id: string): [string, string, unknown?][] => [
      ['GET', `${BASE}/${id}`],
      ['PATCH', `${BASE}/${id}`, { name: 'Taken over' }],
      ['DELETE', `${BASE}/${id}`],
      ['POST', `${BASE}/${id}/test`],
      ['GET', `${BASE}/${id}/schema`],
      ['POST', `${BASE}/${id}/snapshots`],
      ['GET', `${BASE}/${id}/snapshots`],
    ];
    beforeAll(async () => {
      connection = await closedPortConnection(suite.owner, { name: 'Guarded' });
    });

    it('needs authentication on every route (401)', async () => {
      for (const [method, url, body] of [
        ['POST', BASE, connectionBody(suite.projectId, 'postgres://a@127.0.0.1/a')],
        ['GET', BASE],
        ...routes(connection.id),
        ['GET', `/api/v1/snapshots/${MISSING}`],
      ] as [string, string, unknown?][]) {
        const response = await suite.t.anonymous.request(method as 'GET', url, body);
        expect(response.status, `${method} ${url}`).toBe(401);
        expect(response.body).toEqual({ detail: 'Not authenticated' });
      }
    });

    it('answers 404 for another organization, a non-member and an unknown id, on every route', async () => {
      const outsider = watch(await suite.t.createUser(suite.orgId, 'member'));
      for (const client of [suite.other, outsider]) {
        for (const [method, url, body] of routes(connection.id)) {
          const response = await client.request(method as 'GET', url, body);
          expect(response.status, `${method} ${url}`).toBe(404);
          expect(response.body).toEqual({ detail: 'Connection not found' });
        }
        const listed = await client.get(`${BASE}?project_id=${suite.projectId}`);
        expect(listed.status).toBe(404);
        expect(listed.body).toEqual({ detail: 'Project not found' });
        const created = await client.post(BASE, connectionBody(suite.projectId, 'postgres://a@127.0.0.1/a'));
        expect(created.status).toBe(404);
      }
      for (const [method, url, body] of routes(MISSING)) {
        expect((await suite.owner.request(method as 'GET', url, body)).status, `${method} ${url}`).toBe(404);
      }
      // Still there, unchanged.
      expect((await suite.owner.get(`${BASE}/${connection.id}`)).body.name).toBe('Guarded');
    });

    it('lets viewers read, developers test and snapshot, and only admins change', async () => {
      const asRole = async (role: 'viewer' | 'developer' | 'admin') => {
        const client = watch(await suite.t.createUser(suite.orgId, 'member'));
        await suite.owner.post(`/api/v1/projects/${suite.projectId}/members`, {
          user_id: client.user.id,
          role,
        });
        return client;
      };
      const viewer = await asRole('viewer');
      const developer = await asRole('developer');
      const admin = await asRole('admin');
      const id = connection.id;
      const refused = (role: string) => ({ detail: `This action requires the project ${role} role` });

      expect((await viewer.get(`${BASE}/${id}`)).status).toBe(200);
      expect((await viewer.get(`${BASE}?project_id=${suite.projectId}`)).status).toBe(200);
      expect((await viewer.get(`${BASE}/${id}/snapshots`)).status).toBe(200);
      for (const [method, url, body] of [
        ['POST', BASE, connectionBody(suite.projectId, 'postgres://a@127.0.0.1/a')],
        ['PATCH', `${BASE}/${id}`, { name: 'By a viewer' }],
        ['DELETE', `${BASE}/${id}`],
        ['POST', `${BASE}/${id}/test`],
        ['POST', `${BASE}/${id}/snapshots`],
      ] as [string, string, unknown?][]) {
        const response = await viewer.request(method as 'GET', url, body);
        expect(response.status, `${method} ${url}`).toBe(403);
      }

      // Developers: test and snapshot (this target is down: 200 not ok, and 502), nothing else.
      const tested = await developer.post(`${BASE}/${id}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body.ok).toBe(false);
      expect((await developer.post(`${BASE}/${id}/snapshots`)).status).toBe(502);
      expect((await developer.post(`${BASE}/${id}/snapshots?baseline=true`)).body).toEqual(refused('admin'));
      expect((await developer.patch(`${BASE}/${id}`, { name: 'By a developer' })).body).toEqual(
        refused('admin'),
      );
      expect((await developer.delete(`${BASE}/${id}`)).body).toEqual(refused('admin'));
      expect(
        (await developer.post(BASE, connectionBody(suite.projectId, 'postgres://a@127.0.0.1/a'))).body,
      ).toEqual(refused('admin'));

      const renamed = await admin.patch(`${BASE}/${id}`, { name: 'Guarded too' });
      expect(renamed.status).toBe(200);
      const made = await admin.post(
        BASE,
        connectionBody(suite.projectId, 'postgres://a@127.0.0.1/a', { password: '' }),
      );
      expect(made.status).toBe(201);
      expect((await admin.delete(`${BASE}/${made.body.id}`)).status).toBe(204);
    });

    it('applies key scopes: read reads, write changes and tests, admin deletes', async () => {
      const read = await suite.t.keyClient(suite.owner, ['read']);
      const write = await suite.t.keyClient(suite.owner, ['write']);
      const admin = await suite.t.keyClient(suite.owner, ['admin']);
      const id = (await closedPortConnection(suite.owner)).id;
      expect((await read.get(`${BASE}/${id}`)).status).toBe(200);
      expect((await read.get(`${BASE}?project_id=${suite.projectId}`)).status).toBe(200);
      for (const [method, url, body] of [
        ['POST', BASE, connectionBody(suite.projectId, 'postgres://a@127.0.0.1/a')],
        ['PATCH', `${BASE}/${id}`, { name: 'By a read key' }],
        ['POST', `${BASE}/${id}/test`],
        ['POST', `${BASE}/${id}/snapshots`],
      ] as [string, string, unknown?][]) {
        const response = await read.request(method as 'GET', url, body);
        expect(response.status, `${method} ${url}`).toBe(403);
        expect(response.body).toEqual({ detail: "This API key lacks the 'write' scope" });
      }
      expect((await write.patch(`${BASE}/${id}`, { port: 1, password: suite.password() })).status).toBe(200);
      expect((await write.post(`${BASE}/${id}/test`)).status).toBe(200);
      const refused = await write.delete(`${BASE}/${id}`);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: "This API key lacks the 'admin' scope" });
      expect((await admin.delete(`${BASE}/${id}`)).status).toBe(204);
    });
  });

  describe('turning protection off', () => {
    const production = async () => {
      const created = await suite.owner.post(
        BASE,
        connectionBody(suite.projectId, 'postgres://app@127.0.0.1:5432/app', {
          environment: 'production',
          password: suite.password(),
        }),
      );
      expect(created.body.protected).toBe(true);
      return created.body.id as string;
    };
    const unprotectEntries = async (id: string) =>
      (
        await suite.owner.get(`/api/v1/audit?project_id=${suite.projectId}&action=connection.unprotect`)
      ).body.items.filter((e: { target_id: string }) => e.target_id === id);

    it('is refused to a project admin who is not an organization admin (403), explicitly or with the environment', async () => {
      const projectAdmin = watch(await suite.t.createUser(suite.orgId, 'member'));
      await suite.owner.post(`/api/v1/projects/${suite.projectId}/members`, {
        user_id: projectAdmin.user.id,
        role: 'admin',
      });
      const id = await production();
      const refused = { detail: 'Turning protection off requires the organization admin role' };
      for (const body of [
        { protected: false },
        { environment: 'development', protected: false },
        { name: 'Unguarded', protected: false },
      ]) {
        const response = await projectAdmin.patch(`${BASE}/${id}`, body);
        expect(response.status, JSON.stringify(body)).toBe(403);
        expect(response.body).toEqual(refused);
      }
      expect((await suite.owner.get(`${BASE}/${id}`)).body).toMatchObject({
        environment: 'production',
        protected: true,
      });
      // Leaving production keeps the protection: allowed, and still protected.
      const demoted = await projectAdmin.patch(`${BASE}/${id}`, { environment: 'development' });
      expect(demoted.status).toBe(200);
      expect(demoted.body).toMatchObject({ environment: 'development', protected: true });
      // Asking for what is already so, or protecting, is a project admin's edit.
      expect((await projectAdmin.patch(`${BASE}/${id}`, { protected: true })).status).toBe(200);
      expect(await unprotectEntries(id)).toEqual([]);
      // The refusals are in the audit trail too.
      const denied = await suite.owner.get(`/api/v1/audit?action=request.denied&page_size=200`);
      const mine = denied.body.items.filter(
        (e: { actor_id: string; details: { path: string } }) =>
          e.actor_id === projectAdmin.user.id && e.details.path === `${BASE}/${id}`,
      );
      expect(mine).toHaveLength(3);
    });

    it('is an organization admin’s action, audited as connection.unprotect in the same change', async () => {
      const orgAdmin = watch(await suite.t.createUser(suite.orgId, 'admin'));
      const id = await production();
      const response = await orgAdmin.patch(`${BASE}/${id}`, { environment: 'staging', protected: false });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ environment: 'staging', protected: false });
      const entries = await unprotectEntries(id);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        actor_id: orgAdmin.user.id,
        target_type: 'connection',
        details: {
          protected: { from: true, to: false },
          environment: { from: 'production', to: 'staging' },
        },
      });
      // Already unprotected: saying so again removes nothing and is no organization admin's business.
      const projectAdmin = watch(await suite.t.createUser(suite.orgId, 'member'));
      await suite.owner.post(`/api/v1/projects/${suite.projectId}/members`, {
        user_id: projectAdmin.user.id,
        role: 'admin',
      });
      expect((await projectAdmin.patch(`${BASE}/${id}`, { protected: false })).status).toBe(200);
      expect(await unprotectEntries(id)).toHaveLength(1);
    });

    it("needs the admin scope of an organization admin's key", async () => {
      const write = await suite.t.keyClient(suite.owner, ['write']);
      const admin = await suite.t.keyClient(suite.owner, ['admin']);
      const id = await production();
      const refused = await write.patch(`${BASE}/${id}`, { protected: false });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        detail: "Turning protection off needs an API key with the 'admin' scope",
      });
      expect((await suite.owner.get(`${BASE}/${id}`)).body.protected).toBe(true);
      const allowed = await admin.patch(`${BASE}/${id}`, { protected: false });
      expect(allowed.status).toBe(200);
      expect(allowed.body.protected).toBe(false);
      expect(await unprotectEntries(id)).toHaveLength(1);
    });
  });

  itNeverShowsAPassword(suite, { secrets: 1, answers: 20 });
});

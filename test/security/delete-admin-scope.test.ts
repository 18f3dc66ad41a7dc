// Found from outside: `DELETE /patches/{id}` and `DELETE /seed/scenarios/{id}` answered 204 to a key
// with the `write` scope; docs/contract.md §3 (fixed) makes every DELETE an `admin`-scope action. The rule is
// derived from the route table: a DELETE route whose action needs less cannot be registered.
import Fastify, { type FastifyContextConfig } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAuthentication } from '../../src/http/auth.ts';
import { ACTIONS } from '../../src/security/policy.ts';
import { type Client, createTestApp, type TestApp } from '../support/app.ts';
import { connectionBody } from '../support/connections.ts';
import { createTestPgDatabase, type TestPgDatabase } from '../support/databases.ts';
import { moduleRoutes } from '../support/route-table.ts';
import { queryPostgres } from '../support/target-query.ts';

const API = '/api/v1';

describe('every DELETE needs the admin scope', () => {
  let t: TestApp;
  let target: TestPgDatabase;
  let owner: Client;
  let projectId: string;
  let connectionId: string;

  beforeAll(async () => {
    const made = await createTestPgDatabase();
    if (!made) throw new Error('these tests need the PostgreSQL server of TEST_PG_URL');
    target = made;
    await queryPostgres(target.url, 'create table people (id int primary key, name text)');
    t = await createTestApp();
    ({ owner } = await t.createOrg('Deleters'));
    projectId = (await owner.post(`${API}/projects`, { name: 'Deletes' })).body.id;
    const connection = await owner.post(`${API}/connections`, connectionBody(projectId, target.url));
    expect(connection.status).toBe(201);
    connectionId = connection.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await target?.drop();
  });

  const resources = {
    patch: {
      path: '/patches',
      body: () => ({
        project_id: projectId,
        connection_id: connectionId,
        title: `patch ${Math.random()}`,
        sql: "UPDATE people SET name = 'x' WHERE id = 1",
      }),
    },
    'seed scenario': {
      path: '/seed/scenarios',
      body: () => ({
        project_id: projectId,
        connection_id: connectionId,
        name: `seed ${Math.random()}`,
        definition: { tables: [{ table: 'people', rows: 2 }] },
        seed: 1,
      }),
    },
  };

  for (const [what, { path, body }] of Object.entries(resources)) {
    it(`refuses a write key the DELETE of a ${what} (403, kept), and lets an admin key do it`, async () => {
      const created = await owner.post(`${API}${path}`, body());
      expect(created.status).toBe(201);
      const url = `${API}${path}/${created.body.id}`;
      const writer = await t.keyClient(owner, ['write']);
      const refused = await writer.delete(url);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: "This API key lacks the 'admin' scope" });
      expect((await owner.get(url)).status).toBe(200);
      const admin = await t.keyClient(owner, ['admin']);
      expect((await admin.delete(url)).status).toBe(204);
    });
  }

  it('declares an admin-scope action on every DELETE route of the service', async () => {
    const deletes = (await moduleRoutes(t.composition)).filter(
      (route) => route.method === 'DELETE' && route.url.startsWith(API),
    );
    expect(deletes.length).toBeGreaterThan(10);
    const weaker = deletes
      .filter((route) => !route.config.action || ACTIONS[route.config.action].scope !== 'admin')
      .map((route) => `${route.url}: ${route.config.action ?? 'no action'}`);
    expect(weaker).toEqual([]);
  });

  it('cannot register a DELETE route whose action needs less than admin, or none', async () => {
    const configs: FastifyContextConfig[] = [{ action: 'patch.read' }, {}];
    for (const config of configs) {
      const app = Fastify();
      registerAuthentication(app, {
        credentials: {
          session: () => Promise.reject(new Error('not called')),
          apiKey: () => Promise.reject(new Error('not called')),
        },
        secretKey: Buffer.alloc(32),
        limitRate: async () => {},
      });
      app.register(async (scope) => {
        scope.delete('/things/:id', { config }, async () => null);
      });
      await expect(app.ready()).rejects.toThrow(
        /DELETE \/things\/:id must declare an action that needs the admin scope/,
      );
      await app.close();
    }
  });
});

// Cached credentials (credentials.ts) and the credential epoch (credential-epoch.ts, migration
// 0023): a second app on the same store stands for another process with its own cache.
import { randomUUID } from 'node:crypto';
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  SelectQueryNode,
  sql,
  TableNode,
  type UnknownRow,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  createTestApp,
  SECRET_KEY,
  type TestApp,
  testConfig,
} from '../../../test/support/app.ts';
import { createTestPgDatabase, type TestPgDatabase } from '../../../test/support/databases.ts';
import { createUncountedRateLimitStore } from '../../../test/support/rate-limits.ts';
import { openTemplateStore } from '../../../test/support/store-template.ts';
import { buildApp } from '../../app.ts';
import { compose } from '../../compose.ts';
import type { App } from '../../http/types.ts';
import { openStore, type Store } from '../../store/db.ts';
import { migrateToLatest } from '../../store/migrate.ts';
import { createCredentialEpoch } from './credential-epoch.ts';

/** Counts the selects whose first table is `api_keys` or `sessions`: the credential lookups. */
class LookupCounter implements KyselyPlugin {
  lookups = 0;
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    const from = SelectQueryNode.is(node) ? node.from?.froms[0] : undefined;
    const table = from && 'node' in from ? (from.node as TableNode) : from;
    if (table && TableNode.is(table) && ['api_keys', 'sessions'].includes(table.table.identifier.name))
      this.lookups++;
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

describe('cached credentials, checked against the credential epoch', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  /** Another "process": its own composition, cache and epoch reader on the same store. */
  let peer: App;
  let closePeer: () => Promise<void>;
  const counter = new LookupCounter();

  const peerGet = async (url: string, credential: { bearer?: string; session?: string }) => {
    const response = await peer.inject({
      method: 'GET',
      url,
      headers: credential.bearer ? { authorization: `Bearer ${credential.bearer}` } : {},
      cookies: credential.session ? { session: credential.session } : {},
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  };

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Cache org'));
    const composition = await compose({
      config: { ...testConfig({}), logLevel: 'silent' },
      jobs: 'none',
      store: { ...t.store, db: t.store.db.withPlugin(counter) },
      migrate: false,
      now: t.now,
      secretKey: SECRET_KEY,
      passwords: t.composition.passwords,
      rateLimitStore: createUncountedRateLimitStore(),
    });
    peer = await buildApp(composition);
    await peer.ready();
    closePeer = async () => {
      await peer.close();
      await composition.close();
    };
  });
  afterAll(async () => {
    await closePeer?.();
    await t?.close();
  });

  it('serves a warm key without looking it up again', async () => {
    const key = await t.keyClient(owner, ['read']);
    expect((await peerGet('/api/v1/projects', { bearer: key.secret })).status).toBe(200);
    const before = counter.lookups;
    for (let i = 0; i < 5; i++)
      expect((await peerGet('/api/v1/projects', { bearer: key.secret })).status).toBe(200);
    expect(counter.lookups - before).toBe(0);
  });

  it('refuses a cached key revoked through the other process at once', async () => {
    const key = await t.keyClient(owner, ['read']);
    expect((await peerGet('/api/v1/projects', { bearer: key.secret })).status).toBe(200);
    expect((await owner.delete(`/api/v1/api-keys/${key.keyId}`)).status).toBe(204);
    const refused = await peerGet('/api/v1/projects', { bearer: key.secret });
    expect(refused).toEqual({ status: 401, body: { detail: 'API key revoked' } });
  });

  it('refuses a cached key with a wrong secret of the same prefix', async () => {
    const key = await t.keyClient(owner, ['read']);
    expect((await peerGet('/api/v1/projects', { bearer: key.secret })).status).toBe(200);
    const forged = `${key.secret.slice(0, 12)}${'x'.repeat(key.secret.length - 12)}`;
    expect(await peerGet('/api/v1/projects', { bearer: forged })).toEqual({
      status: 401,
      body: { detail: 'Invalid API key' },
    });
  });

  it('refuses the cached key and session of a user deactivated through the other process', async () => {
    const member = await t.createUser(orgId, 'member');
    const key = await t.keyClient(member, ['read']);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: member.user.email, password: 'correct horse battery' },
    });
    const cookie = login.cookies.find((c) => c.name === 'session')?.value ?? '';
    expect((await peerGet('/api/v1/auth/me', { session: cookie })).status).toBe(200);
    expect((await peerGet('/api/v1/projects', { bearer: key.secret })).status).toBe(200);

    expect((await owner.patch(`/api/v1/users/${member.user.id}`, { active: false })).status).toBe(200);
    expect(await peerGet('/api/v1/projects', { bearer: key.secret })).toEqual({
      status: 401,
      body: { detail: 'API key owner is deactivated' },
    });
    expect((await peerGet('/api/v1/auth/me', { session: cookie })).status).toBe(401);
  });

  it('applies a demotion made through the other process at once', async () => {
    const admin = await t.createUser(orgId, 'admin');
    const key = await t.keyClient(admin, ['admin']);
    // POST /users is for organization admins; the role is checked before the body, so an empty
    // body tells the two apart: 422 for an admin, 403 for a member.
    const createUser = async () =>
      (
        await peer.inject({
          method: 'POST',
          url: '/api/v1/users',
          headers: { authorization: `Bearer ${key.secret}` },
          payload: {},
        })
      ).statusCode;
    expect(await createUser()).toBe(422);
    expect((await owner.patch(`/api/v1/users/${admin.user.id}`, { org_role: 'member' })).status).toBe(200);
    expect(await createUser()).toBe(403);
  });

  // GET /projects confirms a cached principal with the epoch its own query read (src/http/confirmed-
  // read.ts): a change seen there is looked up again and the list read again, never served stale.
  it('lists with the demoted role at once, when the list itself read the changed epoch', async () => {
    const admin = await t.createUser(orgId, 'admin');
    const key = await t.keyClient(admin, ['read']);
    const project = await owner.post('/api/v1/projects', { name: `Not ${admin.user.id}` });
    expect(project.status).toBe(201);
    const listed = async () =>
      (
        (await peerGet('/api/v1/projects?page_size=100', { bearer: key.secret })).body.items as {
          id: string;
        }[]
      ).map((item) => item.id);
    expect(await listed()).toContain(project.body.id);
    expect((await owner.patch(`/api/v1/users/${admin.user.id}`, { org_role: 'member' })).status).toBe(200);
    expect(await listed()).toEqual([]);
    // An empty list carries no epoch: it is read on its own, and a revocation still refused.
    expect((await admin.delete(`/api/v1/api-keys/${key.keyId}`)).status).toBe(204);
    expect((await peerGet('/api/v1/projects', { bearer: key.secret })).status).toBe(401);
  });

  it('refuses a cached key once it expires, by the clock alone', async () => {
    const expiresAt = new Date(t.now().getTime() + 60 * 60_000).toISOString();
    const key = await t.keyClient(owner, ['read'], expiresAt);
    expect((await peerGet('/api/v1/projects', { bearer: key.secret })).status).toBe(200);
    t.advance(61 * 60_000);
    expect(await peerGet('/api/v1/projects', { bearer: key.secret })).toEqual({
      status: 401,
      body: { detail: 'API key expired' },
    });
  });
});

describe('the credential epoch of each store', () => {
  const stores: [string, () => Promise<{ store: Store; database?: TestPgDatabase } | undefined>][] = [
    ['PGlite', async () => ({ store: await openTemplateStore('blank') })],
    [
      'PostgreSQL',
      async () => {
        const database = await createTestPgDatabase();
        return database && { store: await openStore({ kind: 'postgres', url: database.url }), database };
      },
    ],
  ];

  for (const [name, open] of stores) {
    it(`${name}: bumps once per committed change to a principal, never for a touch or a rollback`, async () => {
      const opened = await open();
      if (!opened) return;
      const { store, database } = opened;
      try {
        await migrateToLatest(store.db);
        const epoch = await createCredentialEpoch(store);
        const db = store.db;
        const org = randomUUID();
        const user = randomUUID();
        const at = new Date();
        await sql`insert into organizations (id, name, created_at, updated_at) values (${org}, 'E', ${at}, ${at})`.execute(
          db,
        );
        await sql`insert into users (id, org_id, email, name, org_role, created_at, updated_at)
          values (${user}, ${org}, 'e@example.com', 'E', 'member', ${at}, ${at})`.execute(db);
        const start = await epoch.read();

        await sql`update organizations set name = 'Renamed' where id = ${org}`.execute(db);
        await sql`update users set updated_at = now() where id = ${user}`.execute(db);
        expect(await epoch.read()).toBe(start);

        await db.transaction().execute(async (trx) => {
          await sql`update users set org_role = 'admin' where id = ${user}`.execute(trx);
          await sql`update organizations set plan = 'pro' where id = ${org}`.execute(trx);
        });
        const afterChange = await epoch.read();
        expect(BigInt(afterChange)).toBe(BigInt(start) + 1n);

        await db
          .transaction()
          .execute(async (trx) => {
            await sql`update users set active = false where id = ${user}`.execute(trx);
            throw new Error('roll back');
          })
          .catch(() => {});
        expect(await epoch.read()).toBe(afterChange);

        await sql`delete from users where id = ${user}`.execute(db);
        expect(BigInt(await epoch.read())).toBe(BigInt(start) + 2n);
        await epoch.close();
      } finally {
        await store.close();
        await database?.drop();
      }
    });
  }
});

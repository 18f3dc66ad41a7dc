// Connections through the API: CRUD, validation, authorization on every route, the password sealed
// and never shown, and connection tests and live schemas against the real PostgreSQL and MariaDB
// servers of the tests (127.0.0.1 only).
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  createTestApp,
  type Response,
  SECRET_KEY,
  type TestApp,
} from '../../../test/support/app.ts';
import {
  connectionBody,
  pgCuttingProxy,
  responseText,
  secretPassword,
} from '../../../test/support/connections.ts';
import { loadMysqlSql, loadPostgresSql } from '../../../test/support/corpus.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../../test/support/databases.ts';
import {
  createTestMysqlDatabase,
  mysqlAvailable,
  onMysqlServer,
  type TestMysqlDatabase,
  testMysqlUrl,
} from '../../../test/support/mysql.ts';
import { freePort, refusingPgServer } from '../../../test/support/targets.ts';
import { createSecretBox } from '../../security/secret-box.ts';
import { PASSWORD_PURPOSE } from './connections.service.ts';

const BASE = '/api/v1/connections';
const MISSING = '00000000-0000-4000-8000-000000000000';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
/** A self-signed CA certificate (EC P-256, valid for a century), for ca_cert. */
const TEST_CA = `-----BEGIN CERTIFICATE-----
MIIBiDCCAS2gAwIBAgIUYbbXhK7ouFyAnr5blLrc8PO14UcwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNZGJvcHMgdGVzdCBDQTAgFw0yNjExMjEwNjIwNDNaGA8yMTI2
MTAyODA2MjA0M1owGDEWMBQGA1UEAwwNZGJvcHMgdGVzdCBDQTBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABGGtIiAy8jEpLYJq4HyVA/N4WAQrSX35VM832YesUUyc
7lIceJ5AZQm1B4u2cg5O7LTpaH/T+i1/VqERo/mipy2jUzBRMB0GA1UdDgQWBBQN
lumisQCMdvZpbFzK/ynVvo0wujAfBgNVHSMEGDAWgBQNlumisQCMdvZpbFzK/ynV
vo0wujAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQDe3Ldl0HvO
yC8JwUO4BQSh72JzwUkLOt2c0BHqRs4nCgIhAOQRoCDan2z0MzcAskrXW06lGVb3
LurRIHaA9SYIL1eS
-----END CERTIFICATE-----`;

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('connection tests on PostgreSQL (connections.test.ts)', 'PostgreSQL', testPgUrl);
const mysqlUp = await mysqlAvailable();
if (!mysqlUp) reportSkipped('connection tests on MySQL (connections.test.ts)', 'MySQL', testMysqlUrl);

describe('connections', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let other: Client;
  let projectId: string;
  /** Every password given to the API in this file: none may come back anywhere. */
  const secrets: string[] = [];
  /** Every answer seen in this file. */
  const answers: Response[] = [];

  /** A client whose every answer is kept for the final "no password anywhere" check. */
  const watch = (client: Client): Client => {
    const request: Client['request'] = async (...args) => {
      const response = await client.request(...args);
      answers.push(response);
      return response;
    };
    return {
      user: client.user,
      request,
      get: (url) => request('GET', url),
      post: (url, body) => request('POST', url, body),
      put: (url, body) => request('PUT', url, body),
      patch: (url, body) => request('PATCH', url, body),
      delete: (url) => request('DELETE', url),
    };
  };
  const password = () => {
    const secret = secretPassword();
    secrets.push(secret);
    return secret;
  };
  /** A connection to a closed port on 127.0.0.1: creating it connects nowhere, testing it fails fast. */
  async function closedPortConnection(client: Client, overrides: Record<string, unknown> = {}) {
    const response = await client.post(
      BASE,
      connectionBody(projectId, `postgres://app@127.0.0.1:${await freePort()}/app`, {
        password: password(),
        ...overrides,
      }),
    );
    expect(response.status).toBe(201);
    return response.body as { id: string; name: string; updated_at: string };
  }

  beforeAll(async () => {
    t = await createTestApp({
      targets: { connectTimeoutMs: 3_000 },
      // No real DNS: names used here do not resolve (they are accepted, and refused at connect time).
      resolveHost: async (host) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    const org = await t.createOrg('Acme');
    orgId = org.orgId;
    owner = watch(org.owner);
    other = watch((await t.createOrg('Other')).owner);
    projectId = (await owner.post('/api/v1/projects', { name: 'Payments' })).body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates, reads, lists, edits and deletes a connection, each change audited', async () => {
    const secret = password();
    const body = connectionBody(projectId, 'postgres://app@db.example.test:6543/payments', {
      name: 'Primary',
      password: secret,
      ssl_mode: 'require',
    });
    const created = await owner.post(BASE, body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      project_id: projectId,
      name: 'Primary',
      dialect: 'postgresql',
      host: 'db.example.test',
      port: 6543,
      database: 'payments',
      username: 'app',
      has_password: true,
      ssl_mode: 'require',
      ca_cert: null,
      environment: 'development',
      protected: false,
      drift_status: 'none',
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    const id = created.body.id;

    expect((await owner.get(`${BASE}/${id}`)).body).toEqual(created.body);
    const listed = await owner.get(`${BASE}?project_id=${projectId}&page_size=10`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ page: 1, page_size: 10 });
    expect(listed.body.items.map((c: { id: string }) => c.id)).toContain(id);
    expect(listed.body.items.find((c: { id: string }) => c.id === id)).toEqual(created.body);

    t.advance(2_000);
    const edited = await owner.patch(`${BASE}/${id}`, {
      name: 'Primary RW',
      port: 5433,
      ssl_mode: 'disable',
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      name: 'Primary RW',
      port: 5433,
      ssl_mode: 'disable',
      host: 'db.example.test',
    });
    expect(edited.body.updated_at).not.toBe(created.body.updated_at);

    // An empty body changes nothing: same answer, no audit entry.
    const unchanged = await owner.patch(`${BASE}/${id}`, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(edited.body);

    expect((await owner.delete(`${BASE}/${id}`)).status).toBe(204);
    const gone = await owner.get(`${BASE}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'Connection not found' });
    expect((await owner.delete(`${BASE}/${id}`)).status).toBe(404);

    const audit = await owner.get(`/api/v1/audit?project_id=${projectId}&page_size=200`);
    const entries = audit.body.items.filter((e: { target_id: string }) => e.target_id === id);
    expect(entries.map((e: { action: string }) => e.action)).toEqual([
      'connection.delete',
      'connection.update',
      'connection.create',
    ]);
    expect(entries[1].details).toMatchObject({
      changes: { name: 'Primary RW', port: 5433, ssl_mode: 'disable' },
      password_changed: false,
    });
  });

  it('lists newest first, across the projects the caller sees, with the fixed envelope', async () => {
    const project = (await owner.post('/api/v1/projects', { name: 'Listing' })).body.id;
    const names = ['l1', 'l2', 'l3'];
    for (const name of names) {
      const created = await owner.post(
        BASE,
        connectionBody(project, 'postgres://app@127.0.0.1:5432/app', { name, password: password() }),
      );
      expect(created.status).toBe(201);
      t.advance(1_000);
    }
    const first = await owner.get(`${BASE}?project_id=${project}&page_size=2`);
    expect(first.body.total).toBe(3);
    expect(first.body.items.map((c: { name: string }) => c.name)).toEqual(['l3', 'l2']);
    const second = await owner.get(`${BASE}?project_id=${project}&page=2&page_size=2`);
    expect(second.body.items.map((c: { name: string }) => c.name)).toEqual(['l1']);

    // Without project_id: every visible project's connections; a member sees only their projects'.
    const all = await owner.get(`${BASE}?page_size=200`);
    expect(all.body.items.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(names));
    const member = watch(await t.createUser(orgId, 'member'));
    expect((await member.get(BASE)).body).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
    await owner.post(`/api/v1/projects/${project}/members`, { user_id: member.user.id, role: 'viewer' });
    const visible = await member.get(BASE);
    expect(visible.body.items.map((c: { name: string }) => c.name)).toEqual(['l3', 'l2', 'l1']);
    expect(visible.body.total).toBe(3);
    // Another organization sees none of them.
    expect((await other.get(BASE)).body.total).toBe(0);
  });

  it('defaults protected to true for production only, and never unprotects by itself', async () => {
    const url = 'postgres://app@127.0.0.1:5432/app';
    const make = async (overrides: Record<string, unknown>) =>
      (await owner.post(BASE, connectionBody(projectId, url, { password: password(), ...overrides }))).body;
    expect((await make({ environment: 'production' })).protected).toBe(true);
    expect((await make({ environment: 'staging' })).protected).toBe(false);
    expect((await make({ environment: 'production', protected: false })).protected).toBe(false);
    expect((await make({ environment: 'development', protected: true })).protected).toBe(true);

    const dev = await make({ environment: 'development' });
    const promoted = await owner.patch(`${BASE}/${dev.id}`, { environment: 'production' });
    expect(promoted.body).toMatchObject({ environment: 'production', protected: true });
    const demoted = await owner.patch(`${BASE}/${dev.id}`, { environment: 'development' });
    expect(demoted.body).toMatchObject({ environment: 'development', protected: true });
    const unprotected = await owner.patch(`${BASE}/${dev.id}`, { protected: false });
    expect(unprotected.body.protected).toBe(false);
  });

  it('seals the password in the store, bound to its purpose, and changes it on PATCH', async () => {
    const first = password();
    const created = await owner.post(
      BASE,
      connectionBody(projectId, 'postgres://app@127.0.0.1:5432/app', { password: first }),
    );
    const id = created.body.id;
    const box = createSecretBox(SECRET_KEY);
    const stored = async () =>
      (
        await t.store.db
          .selectFrom('connections')
          .select('password')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).password;
    const sealed = await stored();
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(first);
    expect(box.open(sealed, PASSWORD_PURPOSE)).toBe(first);
    expect(() => box.open(sealed, 'totp')).toThrow();

    const second = password();
    const changed = await owner.patch(`${BASE}/${id}`, { password: second });
    expect(changed.status).toBe(200);
    expect(changed.body.has_password).toBe(true);
    expect(box.open(await stored(), PASSWORD_PURPOSE)).toBe(second);

    // An empty password (trust authentication) is allowed and reported as none.
    const emptied = await owner.patch(`${BASE}/${id}`, { password: '' });
    expect(emptied.body.has_password).toBe(false);
    expect(box.open(await stored(), PASSWORD_PURPOSE)).toBe('');

    const audit = await owner.get(`/api/v1/audit?project_id=${projectId}&action=connection.update`);
    const mine = audit.body.items.filter((e: { target_id: string }) => e.target_id === id);
    expect(mine.map((e: { details: { password_changed: boolean } }) => e.details.password_changed)).toEqual([
      true,
      true,
    ]);
  });

  it('refuses bad input with 422 on the right field and stores nothing', async () => {
    const count = async () =>
      Number(
        (await sql<{ n: string }>`select count(*) as n from connections`.execute(t.store.db)).rows[0]!.n,
      );
    const before = await count();
    const valid = connectionBody(projectId, 'postgres://app@127.0.0.1:5432/app', { password: password() });
    const { password: _, ...withoutPassword } = valid;
    const cases: [unknown, (string | number)[], string][] = [
      [{ ...valid, dialect: 'oracle' }, ['body', 'dialect'], 'enum'],
      [{ ...valid, port: 0 }, ['body', 'port'], 'greater_than_equal'],
      [{ ...valid, port: 70000 }, ['body', 'port'], 'less_than_equal'],
      [{ ...valid, port: '5432' }, ['body', 'port'], 'int_type'],
      [{ ...valid, name: '' }, ['body', 'name'], 'string_too_short'],
      [{ ...valid, name: '   ' }, ['body', 'name'], 'string_pattern_mismatch'],
      [{ ...valid, sslmode: 'disable' }, ['body', 'sslmode'], 'extra_forbidden'],
      [{ ...valid, ssl_mode: 'prefer' }, ['body', 'ssl_mode'], 'enum'],
      [{ ...valid, environment: 'qa' }, ['body', 'environment'], 'enum'],
      [{ ...valid, host: '' }, ['body', 'host'], 'string_too_short'],
      [{ ...valid, host: 'db host' }, ['body', 'host'], 'string_pattern_mismatch'],
      [{ ...valid, host: 'db..example.com' }, ['body', 'host'], 'value_error'],
      [{ ...valid, project_id: 'nope' }, ['body', 'project_id'], 'uuid_parsing'],
      [{ ...valid, ca_cert: 'not a certificate' }, ['body', 'ca_cert'], 'value_error'],
      [withoutPassword, ['body', 'password'], 'missing'],
    ];
    for (const [body, loc, type] of cases) {
      const response = await owner.post(BASE, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const id = (await owner.post(BASE, valid)).body.id;
    for (const [body, field] of [
      [{ dialect: 'mysql' }, 'dialect'],
      [{ project_id: projectId }, 'project_id'],
      [{ port: 0 }, 'port'],
    ] as const) {
      const response = await owner.patch(`${BASE}/${id}`, body);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', field]);
    }
    for (const query of ['project_id=nope', 'page_size=0', 'page_size=201']) {
      const response = await owner.get(`${BASE}?${query}`);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe('query');
    }
    expect((await owner.get(`${BASE}/not-a-uuid`)).body.detail).toEqual([
      { loc: ['path', 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
    ]);
    expect(await count()).toBe(before + 1);
  });

  it('answers 409 for a duplicate name in a project (any case), not across projects', async () => {
    const url = 'postgres://app@127.0.0.1:5432/app';
    expect(
      (await owner.post(BASE, connectionBody(projectId, url, { name: 'Replica', password: '' }))).status,
    ).toBe(201);
    const duplicate = await owner.post(
      BASE,
      connectionBody(projectId, url, { name: 'replica', password: '' }),
    );
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ detail: 'A connection with this name already exists in the project' });
    const elsewhere = (await owner.post('/api/v1/projects', { name: 'Elsewhere' })).body.id;
    expect(
      (await owner.post(BASE, connectionBody(elsewhere, url, { name: 'Replica', password: '' }))).status,
    ).toBe(201);
    const renamed = (await owner.post(BASE, connectionBody(projectId, url, { name: 'Other', password: '' })))
      .body.id;
    expect((await owner.patch(`${BASE}/${renamed}`, { name: 'REPLICA' })).status).toBe(409);
  });

  it('keeps PEM CA certificates for verify-full and refuses anything that does not parse', async () => {
    const bundle = `# test CA\n${TEST_CA}\n${TEST_CA}`;
    const created = await owner.post(
      BASE,
      connectionBody(projectId, 'postgres://app@127.0.0.1:5432/app', {
        ssl_mode: 'verify-full',
        ca_cert: bundle,
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ssl_mode: 'verify-full', ca_cert: bundle });
    const broken = TEST_CA.replace('MIIBiDCCAS2g', 'MIIBiDCCAS2h');
    const refused = await owner.patch(`${BASE}/${created.body.id}`, { ca_cert: `${TEST_CA}\n${broken}` });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'ca_cert']);
    const cleared = await owner.patch(`${BASE}/${created.body.id}`, { ca_cert: null });
    expect(cleared.body.ca_cert).toBeNull();
  });

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
      connection = await closedPortConnection(owner, { name: 'Guarded' });
    });

    it('needs authentication on every route (401)', async () => {
      for (const [method, url, body] of [
        ['POST', BASE, connectionBody(projectId, 'postgres://a@127.0.0.1/a')],
        ['GET', BASE],
        ...routes(connection.id),
        ['GET', `/api/v1/snapshots/${MISSING}`],
      ] as [string, string, unknown?][]) {
        const response = await t.anonymous.request(method as 'GET', url, body);
        expect(response.status, `${method} ${url}`).toBe(401);
        expect(response.body).toEqual({ detail: 'Not authenticated' });
      }
    });

    it('answers 404 for another organization, a non-member and an unknown id, on every route', async () => {
      const outsider = watch(await t.createUser(orgId, 'member'));
      for (const client of [other, outsider]) {
        for (const [method, url, body] of routes(connection.id)) {
          const response = await client.request(method as 'GET', url, body);
          expect(response.status, `${method} ${url}`).toBe(404);
          expect(response.body).toEqual({ detail: 'Connection not found' });
        }
        const listed = await client.get(`${BASE}?project_id=${projectId}`);
        expect(listed.status).toBe(404);
        expect(listed.body).toEqual({ detail: 'Project not found' });
        const created = await client.post(BASE, connectionBody(projectId, 'postgres://a@127.0.0.1/a'));
        expect(created.status).toBe(404);
      }
      for (const [method, url, body] of routes(MISSING)) {
        expect((await owner.request(method as 'GET', url, body)).status, `${method} ${url}`).toBe(404);
      }
      // Still there, unchanged.
      expect((await owner.get(`${BASE}/${connection.id}`)).body.name).toBe('Guarded');
    });

    it('lets viewers read, developers test and snapshot, and only admins change', async () => {
      const asRole = async (role: 'viewer' | 'developer' | 'admin') => {
        const client = watch(await t.createUser(orgId, 'member'));
        await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: client.user.id, role });
        return client;
      };
      const viewer = await asRole('viewer');
      const developer = await asRole('developer');
      const admin = await asRole('admin');
      const id = connection.id;
      const refused = (role: string) => ({ detail: `This action requires the project ${role} role` });

      expect((await viewer.get(`${BASE}/${id}`)).status).toBe(200);
      expect((await viewer.get(`${BASE}?project_id=${projectId}`)).status).toBe(200);
      expect((await viewer.get(`${BASE}/${id}/snapshots`)).status).toBe(200);
      for (const [method, url, body] of [
        ['POST', BASE, connectionBody(projectId, 'postgres://a@127.0.0.1/a')],
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
        (await developer.post(BASE, connectionBody(projectId, 'postgres://a@127.0.0.1/a'))).body,
      ).toEqual(refused('admin'));

      const renamed = await admin.patch(`${BASE}/${id}`, { name: 'Guarded too' });
      expect(renamed.status).toBe(200);
      const made = await admin.post(
        BASE,
        connectionBody(projectId, 'postgres://a@127.0.0.1/a', { password: '' }),
      );
      expect(made.status).toBe(201);
      expect((await admin.delete(`${BASE}/${made.body.id}`)).status).toBe(204);
    });

    it('applies key scopes: read reads, write changes and tests, admin deletes', async () => {
      const read = await t.keyClient(owner, ['read']);
      const write = await t.keyClient(owner, ['write']);
      const admin = await t.keyClient(owner, ['admin']);
      const id = (await closedPortConnection(owner)).id;
      expect((await read.get(`${BASE}/${id}`)).status).toBe(200);
      expect((await read.get(`${BASE}?project_id=${projectId}`)).status).toBe(200);
      for (const [method, url, body] of [
        ['POST', BASE, connectionBody(projectId, 'postgres://a@127.0.0.1/a')],
        ['PATCH', `${BASE}/${id}`, { name: 'By a read key' }],
        ['POST', `${BASE}/${id}/test`],
        ['POST', `${BASE}/${id}/snapshots`],
      ] as [string, string, unknown?][]) {
        const response = await read.request(method as 'GET', url, body);
        expect(response.status, `${method} ${url}`).toBe(403);
        expect(response.body).toEqual({ detail: "This API key lacks the 'write' scope" });
      }
      expect((await write.patch(`${BASE}/${id}`, { port: 1 })).status).toBe(200);
      expect((await write.post(`${BASE}/${id}/test`)).status).toBe(200);
      const refused = await write.delete(`${BASE}/${id}`);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: "This API key lacks the 'admin' scope" });
      expect((await admin.delete(`${BASE}/${id}`)).status).toBe(204);
    });
  });

  it('tests a closed port as unreachable and a silent refusal of the password as authentication_failed', async () => {
    const closed = await closedPortConnection(owner);
    const unreachable = await owner.post(`${BASE}/${closed.id}/test`);
    expect(unreachable.status).toBe(200);
    expect(unreachable.body).toEqual({
      ok: false,
      latency_ms: expect.any(Number),
      server_version: null,
      error: { cause: 'unreachable', message: expect.any(String) },
    });

    // A server that quotes the password back in its refusal: the message must not carry it.
    const server = await refusingPgServer();
    try {
      const refused = await closedPortConnection(owner, { port: server.port });
      const response = await owner.post(`${BASE}/${refused.id}/test`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        ok: false,
        server_version: null,
        error: { cause: 'authentication_failed' },
      });
      expect(response.body.error.message).toContain('***');
      const schema = await owner.get(`${BASE}/${refused.id}/schema`);
      expect(schema.status).toBe(502);
      expect(schema.body.detail).toContain(refused.name);
      expect(schema.body.detail).toContain('authentication_failed');
      expect(schema.body.detail).toContain('***');
    } finally {
      await server.close();
    }

    const audit = await owner.get(
      `/api/v1/audit?project_id=${projectId}&action=connection.test&page_size=200`,
    );
    const entry = audit.body.items.find((e: { target_id: string }) => e.target_id === closed.id);
    expect(entry).toMatchObject({ outcome: 'failure', details: { ok: false, cause: 'unreachable' } });
  });

  it('answers 502 naming the connection and the cause when the schema cannot be read', async () => {
    const closed = await closedPortConnection(owner, { name: 'Down' });
    const response = await owner.get(`${BASE}/${closed.id}/schema`);
    expect(response.status).toBe(502);
    expect(response.body.detail).toMatch(/^Connection "Down" \([0-9a-f-]{36}\) failed: unreachable: /);
  });

  describe('on PostgreSQL', { skip: !pgUp }, () => {
    let database: TestPgDatabase;
    beforeAll(async () => {
      database = (await createTestPgDatabase())!;
      await loadPostgresSql(
        database.url,
        'create table customers (id bigint primary key, email text not null unique); ' +
          'create table orders (id bigint primary key, customer_id bigint references customers (id), total numeric(12,2))',
      );
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('tests ok with the server version, and reads the live schema', async () => {
      // The test server trusts 127.0.0.1, so any password passes; it still must never come back.
      const created = await owner.post(
        BASE,
        connectionBody(projectId, database.url, { password: password() }),
      );
      expect(created.status).toBe(201);
      const tested = await owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body).toEqual({
        ok: true,
        latency_ms: expect.any(Number),
        server_version: expect.stringMatching(/^\d+(\.\d+)?/),
        error: null,
      });

      const schema = await owner.get(`${BASE}/${created.body.id}/schema`);
      expect(schema.status).toBe(200);
      expect(schema.body).toMatchObject({ dialect: 'postgresql', flavor: 'postgresql' });
      expect(
        schema.body.tables.map((table: { schema: string; name: string }) => `${table.schema}.${table.name}`),
      ).toEqual(['public.customers', 'public.orders']);
      const orders = schema.body.tables[1];
      expect(orders.foreign_keys[0]).toMatchObject({
        columns: ['customer_id'],
        referenced_table: 'customers',
        referenced_columns: ['id'],
      });
      expect(orders.columns.find((c: { name: string }) => c.name === 'total').type).toBe('numeric(12,2)');
      // A heavy operation: it counts 10 against the plan allowance (API §4).
      expect(Number(schema.headers['x-ratelimit-remaining'])).toBe(
        Number(schema.headers['x-ratelimit-limit']) - 10,
      );
    });

    it('returns views, routines, triggers, partitioning and policies in the live schema', async () => {
      const objects = (await createTestPgDatabase())!;
      try {
        await loadPostgresSql(
          objects.url,
          'create table events (id bigint not null, at date not null) partition by range (at); ' +
            "create table events_2026 partition of events for values from ('2026-01-01') to ('2027-01-01'); " +
            'create table notes (id bigint primary key, body text); ' +
            'alter table notes enable row level security; ' +
            'create policy notes_read on notes for select using (true); ' +
            'create view note_bodies as select body from notes; ' +
            'create function touch() returns trigger language plpgsql as $$ begin return new; end $$; ' +
            'create trigger notes_touch before update on notes for each row execute function touch(); ' +
            // Storage, options and comments the model reads must also leave through the API.
            'alter table notes set (fillfactor = 70); alter table notes alter column body set storage external; ' +
            'create index notes_body on notes (body) with (fillfactor = 80); ' +
            "comment on index notes_body is 'for search'; " +
            'create table replies (id bigint primary key, note_id bigint, ' +
            'constraint replies_note foreign key (note_id) references notes (id) match full); ' +
            "comment on constraint replies_note on replies is 'a reply needs its note';",
        );
        const created = await owner.post(
          BASE,
          connectionBody(projectId, objects.url, { name: 'PG objects' }),
        );
        const schema = await owner.get(`${BASE}/${created.body.id}/schema`);
        expect(schema.status).toBe(200);
        expect(schema.body.model_version).toEqual(expect.any(Number));
        expect(schema.body.views).toEqual([
          expect.objectContaining({ schema: 'public', name: 'note_bodies', materialized: false }),
        ]);
        expect(schema.body.routines).toEqual([
          expect.objectContaining({ name: 'touch()', kind: 'function', result: 'trigger' }),
        ]);
        expect(schema.body.triggers).toEqual([
          expect.objectContaining({ table: 'notes', name: 'notes_touch', state: 'O' }),
        ]);
        const table = (name: string) => schema.body.tables.find((t: { name: string }) => t.name === name);
        expect(table('events').partitioning).toMatchObject({ key: 'RANGE (at)', parent: null });
        expect(table('events_2026').partitioning).toMatchObject({
          parent: { schema: 'public', name: 'events' },
          bound: expect.stringMatching(/^FOR VALUES FROM/),
        });
        expect(table('notes').row_security).toEqual({ enabled: true, forced: false });
        expect(table('notes').table_storage).toMatchObject({ parameters: ['fillfactor=70'] });
        expect(table('notes').columns[1]).toMatchObject({ name: 'body', storage: 'external' });
        expect(table('notes').indexes).toEqual([
          expect.objectContaining({ name: 'notes_body', options: ['fillfactor=80'], comment: 'for search' }),
        ]);
        expect(table('replies').foreign_keys[0]).toMatchObject({
          match_full: true,
          comment: 'a reply needs its note',
        });
        expect(table('notes').policies).toEqual([
          expect.objectContaining({ name: 'notes_read', command: 'SELECT', permissive: true }),
        ]);
      } finally {
        await objects.drop();
      }
    });

    it('answers 502 connection_lost when the server goes away mid-introspection, and stores nothing', async () => {
      const { hostname, port } = new URL(database.url);
      // Two queries pass: the connection test's and the pool's connect; the introspection's is cut.
      const proxy = await pgCuttingProxy({ host: hostname, port: Number(port) }, 2);
      try {
        const secret = password();
        const id = (
          await owner.post(
            BASE,
            connectionBody(projectId, database.url, { name: 'Flaky', port: proxy.port, password: secret }),
          )
        ).body.id;
        const tested = await owner.post(`${BASE}/${id}/test`);
        expect(tested.body).toMatchObject({ ok: true });
        const schema = await owner.get(`${BASE}/${id}/schema`);
        expect(schema.status).toBe(502);
        expect(schema.body.detail).toMatch(/^Connection "Flaky" .* failed: connection_lost: /);
        expect(responseText(schema)).not.toContain(secret);
        const snapshot = await owner.post(`${BASE}/${id}/snapshots`);
        expect(snapshot.status).toBe(502);
        expect((await owner.get(`${BASE}/${id}/snapshots`)).body.total).toBe(0);
      } finally {
        await proxy.close();
      }
    });

    it('tests an unknown database as unknown_database (200, not ok)', async () => {
      const missing = `missing_${randomBytes(4).toString('hex')}`;
      const created = await owner.post(
        BASE,
        connectionBody(projectId, database.url, { database: missing, password: password() }),
      );
      const tested = await owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body).toMatchObject({
        ok: false,
        server_version: null,
        error: { cause: 'unknown_database' },
      });
      const schema = await owner.get(`${BASE}/${created.body.id}/schema`);
      expect(schema.status).toBe(502);
      expect(schema.body.detail).toContain('unknown_database');
    });
  });

  describe('on MariaDB / MySQL', { skip: !mysqlUp }, () => {
    let database: TestMysqlDatabase;
    beforeAll(async () => {
      database = (await createTestMysqlDatabase())!;
      await loadMysqlSql(
        database.url,
        'create table customers (id bigint primary key, email varchar(200) not null unique);' +
          'create table orders (id bigint primary key, customer_id bigint, total decimal(12,2),' +
          ' foreign key (customer_id) references customers (id));',
      );
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('tests ok with the server version, and reads the live schema', async () => {
      const created = await owner.post(BASE, connectionBody(projectId, database.url));
      expect(created.status).toBe(201);
      const tested = await owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.body).toEqual({
        ok: true,
        latency_ms: expect.any(Number),
        server_version: expect.stringMatching(/^\d+\.\d+/),
        error: null,
      });
      const schema = await owner.get(`${BASE}/${created.body.id}/schema`);
      expect(schema.status).toBe(200);
      expect(schema.body.dialect).toBe('mysql');
      expect(['mysql', 'mariadb']).toContain(schema.body.flavor);
      expect(schema.body.tables.map((table: { name: string }) => table.name)).toEqual([
        'customers',
        'orders',
      ]);
      expect(schema.body.tables[1].foreign_keys[0]).toMatchObject({
        columns: ['customer_id'],
        referenced_table: 'customers',
      });
    });

    it('returns views, routines, triggers and partitioning in the live schema', async () => {
      const objects = (await createTestMysqlDatabase())!;
      try {
        await loadMysqlSql(
          objects.url,
          'create table sales (id int not null, y int not null, primary key (id, y))' +
            ' partition by range (y) (partition p0 values less than (2026), partition p1 values less than maxvalue);' +
            'create view sale_ids as select id from sales;' +
            'create trigger sales_check before insert on sales for each row set new.y = new.y;' +
            'create procedure count_sales() select count(*) from sales;',
        );
        const created = await owner.post(
          BASE,
          connectionBody(projectId, objects.url, { name: 'My objects' }),
        );
        const schema = await owner.get(`${BASE}/${created.body.id}/schema`);
        expect(schema.status).toBe(200);
        expect(schema.body.default_collation).toEqual(expect.any(String));
        expect(schema.body.views).toEqual([expect.objectContaining({ schema: null, name: 'sale_ids' })]);
        expect(schema.body.routines).toEqual([
          expect.objectContaining({ name: 'count_sales', kind: 'procedure' }),
        ]);
        expect(schema.body.triggers).toEqual([
          expect.objectContaining({ table: 'sales', name: 'sales_check' }),
        ]);
        expect(schema.body.tables[0].partitioning.key).toMatch(/^RANGE/);
      } finally {
        await objects.drop();
      }
    });

    it('tests a wrong password as authentication_failed and an unknown database as unknown_database', async () => {
      const secret = password();
      const wrong = await owner.post(BASE, connectionBody(projectId, database.url, { password: secret }));
      const refused = await owner.post(`${BASE}/${wrong.body.id}/test`);
      expect(refused.status).toBe(200);
      expect(refused.body).toMatchObject({
        ok: false,
        server_version: null,
        error: { cause: 'authentication_failed' },
      });
      expect(responseText(refused)).not.toContain(secret);

      const missing = await owner.post(
        BASE,
        connectionBody(projectId, database.url, { database: `missing_${randomBytes(4).toString('hex')}` }),
      );
      const unknown = await owner.post(`${BASE}/${missing.body.id}/test`);
      expect(unknown.body).toMatchObject({ ok: false, error: { cause: 'unknown_database' } });
    });

    it('answers 502 permission_denied for a user without rights, and stores no snapshot', async () => {
      const user = `dbops_nr_${randomBytes(5).toString('hex')}`;
      const secret = password();
      // Generated name and hex password: safe to write into the statements.
      await onMysqlServer((connection) =>
        connection.query(`create user '${user}'@'%' identified by '${secret}'`),
      );
      try {
        const id = (
          await owner.post(
            BASE,
            connectionBody(projectId, database.url, { username: user, password: secret }),
          )
        ).body.id;
        const schema = await owner.get(`${BASE}/${id}/schema`);
        expect(schema.status).toBe(502);
        expect(schema.body.detail).toContain('permission_denied');
        expect((await owner.post(`${BASE}/${id}/snapshots`)).status).toBe(502);
        expect((await owner.get(`${BASE}/${id}/snapshots`)).body.total).toBe(0);
      } finally {
        await onMysqlServer((connection) => connection.query(`drop user if exists '${user}'@'%'`));
      }
    });
  });

  // Last: everything above has run, with many passwords, through every route.
  it('never shows a password: not in answers, log lines or audit entries', async () => {
    expect(secrets.length).toBeGreaterThan(10);
    expect(answers.length).toBeGreaterThan(50);
    const everything = [
      ...answers.map(responseText),
      t.logs.join('\n'),
      JSON.stringify(await t.store.db.selectFrom('audit_log').selectAll().execute()),
    ].join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    for (const answer of answers) {
      const items = answer.body?.items ?? [answer.body];
      for (const item of items)
        if (item && typeof item === 'object') expect(item).not.toHaveProperty('password');
    }
  });
});

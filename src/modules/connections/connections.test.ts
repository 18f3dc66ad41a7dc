// Connections through the API: create, read, list, edit and delete with an audit entry each, the
// protected flag's default, the password sealed in the store and never shown, validation (422 at the
// right field, nothing stored), duplicate names (409) and CA certificates. Authorization:
// connections.authorization.test.ts; connection tests and live schemas against the real servers:
// connections.targets.test.ts.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SECRET_KEY } from '../../../test/support/app.ts';
import { connectionBody } from '../../../test/support/connections.ts';
import { connectionsSuite, itNeverShowsAPassword } from '../../../test/support/connections-suite.ts';
import { createSecretBox } from '../../security/secret-box.ts';
import { PASSWORD_PURPOSE } from './connections.service.ts';

const BASE = '/api/v1/connections';
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

describe('connections', () => {
  const suite = connectionsSuite();
  const { watch, password } = suite;

  it('creates, reads, lists, edits and deletes a connection, each change audited', async () => {
    const secret = password();
    const body = connectionBody(suite.projectId, 'postgres://app@db.example.test:6543/payments', {
      name: 'Primary',
      password: secret,
      ssl_mode: 'require',
    });
    const created = await suite.owner.post(BASE, body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      project_id: suite.projectId,
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

    expect((await suite.owner.get(`${BASE}/${id}`)).body).toEqual(created.body);
    const listed = await suite.owner.get(`${BASE}?project_id=${suite.projectId}&page_size=10`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ page: 1, page_size: 10 });
    expect(listed.body.items.map((c: { id: string }) => c.id)).toContain(id);
    expect(listed.body.items.find((c: { id: string }) => c.id === id)).toEqual(created.body);

    suite.t.advance(2_000);
    // Another port and a lower ssl_mode: the stored password does not follow, a new one comes along.
    const edited = await suite.owner.patch(`${BASE}/${id}`, {
      name: 'Primary RW',
      port: 5433,
      ssl_mode: 'disable',
      password: password(),
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
    const unchanged = await suite.owner.patch(`${BASE}/${id}`, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(edited.body);

    expect((await suite.owner.delete(`${BASE}/${id}`)).status).toBe(204);
    const gone = await suite.owner.get(`${BASE}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: 'Connection not found' });
    expect((await suite.owner.delete(`${BASE}/${id}`)).status).toBe(404);

    const audit = await suite.owner.get(`/api/v1/audit?project_id=${suite.projectId}&page_size=200`);
    const entries = audit.body.items.filter((e: { target_id: string }) => e.target_id === id);
    expect(entries.map((e: { action: string }) => e.action)).toEqual([
      'connection.delete',
      'connection.update',
      'connection.create',
    ]);
    expect(entries[1].details).toMatchObject({
      changes: { name: 'Primary RW', port: 5433, ssl_mode: 'disable' },
      password_changed: true,
    });
  });

  it('lists newest first, across the projects the caller sees, with the fixed envelope', async () => {
    const project = (await suite.owner.post('/api/v1/projects', { name: 'Listing' })).body.id;
    const names = ['l1', 'l2', 'l3'];
    for (const name of names) {
      const created = await suite.owner.post(
        BASE,
        connectionBody(project, 'postgres://app@127.0.0.1:5432/app', { name, password: password() }),
      );
      expect(created.status).toBe(201);
      suite.t.advance(1_000);
    }
    const first = await suite.owner.get(`${BASE}?project_id=${project}&page_size=2`);
    expect(first.body.total).toBe(3);
    expect(first.body.items.map((c: { name: string }) => c.name)).toEqual(['l3', 'l2']);
    const second = await suite.owner.get(`${BASE}?project_id=${project}&page=2&page_size=2`);
    expect(second.body.items.map((c: { name: string }) => c.name)).toEqual(['l1']);

    // Without project_id: every visible project's connections; a member sees only their projects'.
    const all = await suite.owner.get(`${BASE}?page_size=200`);
    expect(all.body.items.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(names));
    const member = watch(await suite.t.createUser(suite.orgId, 'member'));
    expect((await member.get(BASE)).body).toEqual({ items: [], total: 0, page: 1, page_size: 50 });
    await suite.owner.post(`/api/v1/projects/${project}/members`, {
      user_id: member.user.id,
      role: 'viewer',
    });
    const visible = await member.get(BASE);
    expect(visible.body.items.map((c: { name: string }) => c.name)).toEqual(['l3', 'l2', 'l1']);
    expect(visible.body.total).toBe(3);
    // Another organization sees none of them.
    expect((await suite.other.get(BASE)).body.total).toBe(0);
  });

  it('defaults protected to true for production only, and never unprotects by itself', async () => {
    const url = 'postgres://app@127.0.0.1:5432/app';
    const make = async (overrides: Record<string, unknown>) =>
      (
        await suite.owner.post(
          BASE,
          connectionBody(suite.projectId, url, { password: password(), ...overrides }),
        )
      ).body;
    expect((await make({ environment: 'production' })).protected).toBe(true);
    expect((await make({ environment: 'staging' })).protected).toBe(false);
    expect((await make({ environment: 'production', protected: false })).protected).toBe(false);
    expect((await make({ environment: 'development', protected: true })).protected).toBe(true);

    const dev = await make({ environment: 'development' });
    const promoted = await suite.owner.patch(`${BASE}/${dev.id}`, { environment: 'production' });
    expect(promoted.body).toMatchObject({ environment: 'production', protected: true });
    const demoted = await suite.owner.patch(`${BASE}/${dev.id}`, { environment: 'development' });
    expect(demoted.body).toMatchObject({ environment: 'development', protected: true });
    const unprotected = await suite.owner.patch(`${BASE}/${dev.id}`, { protected: false });
    expect(unprotected.body.protected).toBe(false);
  });

  it('seals the password in the store, bound to its purpose, and changes it on PATCH', async () => {
    const first = password();
    const created = await suite.owner.post(
      BASE,
      connectionBody(suite.projectId, 'postgres://app@127.0.0.1:5432/app', { password: first }),
    );
    const id = created.body.id;
    const box = createSecretBox(SECRET_KEY);
    const stored = async () =>
      (
        await suite.t.store.db
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
    const changed = await suite.owner.patch(`${BASE}/${id}`, { password: second });
    expect(changed.status).toBe(200);
    expect(changed.body.has_password).toBe(true);
    expect(box.open(await stored(), PASSWORD_PURPOSE)).toBe(second);

    // An empty password (trust authentication) is allowed and reported as none.
    const emptied = await suite.owner.patch(`${BASE}/${id}`, { password: '' });
    expect(emptied.body.has_password).toBe(false);
    expect(box.open(await stored(), PASSWORD_PURPOSE)).toBe('');

    const audit = await suite.owner.get(
      `/api/v1/audit?project_id=${suite.projectId}&action=connection.update`,
    );
    const mine = audit.body.items.filter((e: { target_id: string }) => e.target_id === id);
    expect(mine.map((e: { details: { password_changed: boolean } }) => e.details.password_changed)).toEqual([
      true,
      true,
    ]);
  });

  it('refuses bad input with 422 on the right field and stores nothing', async () => {
    const count = async () =>
      Number(
        (await sql<{ n: string }>`select count(*) as n from connections`.execute(suite.t.store.db)).rows[0]!
          .n,
      );
    const before = await count();
    const valid = connectionBody(suite.projectId, 'postgres://app@127.0.0.1:5432/app', {
      password: password(),
    });
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
      const response = await suite.owner.post(BASE, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const id = (await suite.owner.post(BASE, valid)).body.id;
    for (const [body, field] of [
      [{ dialect: 'mysql' }, 'dialect'],
      [{ project_id: suite.projectId }, 'project_id'],
      [{ port: 0 }, 'port'],
    ] as const) {
      const response = await suite.owner.patch(`${BASE}/${id}`, body);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body', field]);
    }
    for (const query of ['project_id=nope', 'page_size=0', 'page_size=201']) {
      const response = await suite.owner.get(`${BASE}?${query}`);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe('query');
    }
    expect((await suite.owner.get(`${BASE}/not-a-uuid`)).body.detail).toEqual([
      { loc: ['path', 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
    ]);
    expect(await count()).toBe(before + 1);
  });

  it('answers 409 for a duplicate name in a project (any case), not across projects', async () => {
    const url = 'postgres://app@127.0.0.1:5432/app';
    expect(
      (await suite.owner.post(BASE, connectionBody(suite.projectId, url, { name: 'Replica', password: '' })))
        .status,
    ).toBe(201);
    const duplicate = await suite.owner.post(
      BASE,
      connectionBody(suite.projectId, url, { name: 'replica', password: '' }),
    );
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ detail: 'A connection with this name already exists in the project' });
    const elsewhere = (await suite.owner.post('/api/v1/projects', { name: 'Elsewhere' })).body.id;
    expect(
      (await suite.owner.post(BASE, connectionBody(elsewhere, url, { name: 'Replica', password: '' })))
        .status,
    ).toBe(201);
    const renamed = (
      await suite.owner.post(BASE, connectionBody(suite.projectId, url, { name: 'Other', password: '' }))
    ).body.id;
    expect((await suite.owner.patch(`${BASE}/${renamed}`, { name: 'REPLICA' })).status).toBe(409);
  });

  it('keeps PEM CA certificates for verify-full and refuses anything that does not parse', async () => {
    const bundle = `# test CA\n${TEST_CA}\n${TEST_CA}`;
    const created = await suite.owner.post(
      BASE,
      connectionBody(suite.projectId, 'postgres://app@127.0.0.1:5432/app', {
        ssl_mode: 'verify-full',
        ca_cert: bundle,
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ssl_mode: 'verify-full', ca_cert: bundle });
    const broken = TEST_CA.replace('MIIBiDCCAS2g', 'MIIBiDCCAS2h');
    const refused = await suite.owner.patch(`${BASE}/${created.body.id}`, {
      ca_cert: `${TEST_CA}\n${broken}`,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'ca_cert']);
    // Other CAs under verify-full check the server otherwise: the password comes with them.
    const unchecked = await suite.owner.patch(`${BASE}/${created.body.id}`, { ca_cert: null });
    expect(unchecked.status).toBe(422);
    expect(unchecked.body.detail[0].loc).toEqual(['body', 'password']);
    const cleared = await suite.owner.patch(`${BASE}/${created.body.id}`, {
      ca_cert: null,
      password: password(),
    });
    expect(cleared.body.ca_cert).toBeNull();
  });

  // Last: everything above has run, with many passwords, through every route.
  itNeverShowsAPassword(suite, { secrets: 10, answers: 30 });
});

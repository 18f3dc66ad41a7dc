// SCIM 2.0 as identity providers use it: Okta's compliance sequence in its order (also over a real
// HTTP server), Entra ID's request forms, deactivation and deletion with their effect on sessions and
// keys, group push and group mappings raising and lowering roles at once, the error envelope, the
// token's scope and the admin routes' authorization.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { createMemoryRateLimitStore } from '../../http/rate-limit-store.ts';

const API = '/api/v1';
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

interface ScimAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: SCIM resources, asserted on by value
  body: any;
}

describe('SCIM 2.0', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let token: string;
  let projectId: string;

  async function scim(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    options: { token?: string; contentType?: string } = {},
  ): Promise<ScimAnswer> {
    const response = await t.app.inject({
      method,
      url: `/scim/v2${url}`,
      headers: {
        authorization: `Bearer ${options.token ?? token}`,
        ...(body !== undefined && { 'content-type': options.contentType ?? 'application/scim+json' }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body ? JSON.parse(response.body) : undefined,
    };
  }

  const newUser = (email: string, extra: Record<string, unknown> = {}) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: email,
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ primary: true, value: email, type: 'work' }],
    active: true,
    password: 'never-stored-1',
    ...extra,
  });

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Provisioned'));
    const created = await owner.post(`${API}/admin/scim/token`);
    expect(created.status).toBe(201);
    token = created.body.token;
    projectId = (await owner.post(`${API}/projects`, { name: 'Mapped' })).body.id;
  });
  afterAll(() => t.close());

  it("passes Okta's compliance sequence, in its order", async () => {
    const first = await scim('GET', '/Users?count=1&startIndex=1');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(first.body).toMatchObject({ totalResults: 1, itemsPerPage: 1, startIndex: 1 });
    const someone = first.body.Resources[0];
    expect(someone.userName).toBe(owner.user.email);
    expect((await scim('GET', `/Users/${someone.id}`)).body.id).toBe(someone.id);
    const unknownName = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`,
    );
    expect(unknownName.body).toMatchObject({ totalResults: 0, Resources: [] });
    const unknownId = await scim('GET', `/Users/${randomUUID()}`);
    expect(unknownId.status).toBe(404);
    expect(unknownId.body).toEqual({ schemas: [SCIM_ERROR], status: '404', detail: 'User not found' });
    const email = `okta-${randomUUID().slice(0, 8)}@example.com`;
    const created = await scim('POST', '/Users', newUser(email));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      userName: email,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      active: true,
      emails: [{ value: email, primary: true }],
    });
    expect(created.body.password).toBeUndefined();
    expect((await scim('GET', `/Users/${created.body.id}`)).body.userName).toBe(email);
    const again = await scim('POST', '/Users', newUser(email));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    const capitals = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}`,
    );
    expect(capitals.body.totalResults).toBe(1);
    expect(capitals.body.Resources[0].id).toBe(created.body.id);
    const started = Date.now();
    expect((await scim('GET', '/Groups')).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(600);
    expect((await scim('GET', '/Users', undefined, { token: 'non-token' })).status).toBe(401);
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/scim/v2/Users',
      headers: { authorization: 'non-token' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ schemas: [SCIM_ERROR], status: '401' });
    expect((await scim('GET', '/Users/00919288221112222')).status).toBe(404);
  });

  it('answers the same sequence over a real HTTP server', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}/scim/v2`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' };
    const email = `http-${randomUUID().slice(0, 8)}@example.com`;
    const created = await fetch(`${base}/Users`, {
      method: 'POST',
      headers,
      body: JSON.stringify(newUser(email)),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const { id } = (await created.json()) as { id: string };
    const filtered = await fetch(`${base}/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`, {
      headers,
    });
    expect(((await filtered.json()) as { totalResults: number }).totalResults).toBe(1);
    expect((await fetch(`${base}/Users/${id}`, { method: 'DELETE', headers })).status).toBe(204);
    expect((await fetch(`${base}/Users/${id}`, { headers })).status).toBe(404);
  });

  it("takes Entra ID's forms: capitalised ops, booleans as text, application/json, dotted keys", async () => {
    const email = `entra-${randomUUID().slice(0, 8)}@example.com`;
    const created = await scim('POST', '/Users', newUser(email, { externalId: 'entra-1' }), {
      contentType: 'application/json',
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const patched = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'name.familyName', value: 'Byron' },
        { op: 'Add', path: 'title', value: 'Analyst' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: email.replace('entra', 'moved') },
        { op: 'Replace', value: { 'name.givenName': 'Augusta' } },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      userName: email.replace('entra', 'moved'),
      name: { givenName: 'Augusta', familyName: 'Byron' },
      active: true,
    });
    const deactivated = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(deactivated.body.active).toBe(false);
    // Deactivated users are still returned by GET and filters.
    const byExternal = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('externalId eq "entra-1" and active eq false')}`,
    );
    expect(byExternal.body.totalResults).toBe(1);
    const badPath = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'favouriteColour', value: 'blue' }],
    });
    expect(badPath.status).toBe(400);
    expect(badPath.body).toMatchObject({ scimType: 'invalidPath' });
    const badFilter = await scim('GET', `/Users?filter=${encodeURIComponent('nickName gt "x"')}`);
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.scimType).toBe('invalidFilter');
  });

  it('deactivates at once (sessions revoked, keys refused), keeps active on a PUT without it, and deletes softly', async () => {
    const member = await t.createUser(orgId, 'member');
    const key = await t.keyClient(member, ['read']);
    // Link the user to SCIM by its id, as an identity provider that matched it would.
    const id = member.user.id;
    expect((await member.get(`${API}/auth/me`)).status).toBe(200);
    const off = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.body.active).toBe(false);
    expect((await member.get(`${API}/auth/me`)).status).toBe(401);
    expect((await key.get(`${API}/projects`)).status).toBe(401);

    const put = await scim('PUT', `/Users/${id}`, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: member.user.email,
      name: { givenName: 'Renamed', familyName: 'Member' },
    });
    expect(put.body).toMatchObject({ active: false, name: { givenName: 'Renamed' } });
    const on = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    });
    expect(on.body.active).toBe(true);
    expect((await key.get(`${API}/projects`)).status).toBe(200);

    expect((await scim('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await scim('GET', `/Users/${id}`)).status).toBe(404);
    expect((await key.get(`${API}/projects`)).status).toBe(401);
    // The same userName and externalId provisioned again make a new user.
    const again = await scim('POST', '/Users', newUser(member.user.email, { externalId: 'ext-again' }));
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(id);
    const audit = (await owner.get(`${API}/audit?action=user.delete`)).body.items;
    expect(audit.map((e: { target_id: string }) => e.target_id)).toContain(id);
  });

  it('pushes groups and maps them to roles, raising and lowering them at once', async () => {
    const email = `group-${randomUUID().slice(0, 8)}@example.com`;
    const user = (await scim('POST', '/Users', newUser(email))).body;
    const admins = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'DB Admins',
      members: [],
    });
    expect(admins.status).toBe(201);
    const mapped = await owner.put(`${API}/admin/scim/group-mappings`, {
      mappings: [
        { group: 'db admins', org_role: 'admin', projects: [{ project_id: projectId, role: 'developer' }] },
      ],
    });
    expect(mapped.status).toBe(200);
    const roleOf = async () =>
      (
        await t.store.db
          .selectFrom('users')
          .select('org_role')
          .where('id', '=', user.id)
          .executeTakeFirstOrThrow()
      ).org_role;
    const projectRoleOf = async () =>
      (
        await t.store.db
          .selectFrom('project_members')
          .select('role')
          .where('user_id', '=', user.id)
          .where('project_id', '=', projectId)
          .executeTakeFirst()
      )?.role;
    expect(await roleOf()).toBe('member');

    // Okta adds with a value list; the role rises in the same request.
    await scim('PATCH', `/Groups/${admins.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: user.id }] }],
    });
    expect(await roleOf()).toBe('admin');
    expect(await projectRoleOf()).toBe('developer');
    expect((await scim('GET', `/Groups/${admins.body.id}`)).body.members).toEqual([
      expect.objectContaining({ value: user.id, display: email }),
    ]);

    // Okta removes by filter path; Entra removes with a value list. Either lowers it at once.
    await scim('PATCH', `/Groups/${admins.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${user.id}"]` }],
    });
    expect(await roleOf()).toBe('member');
    expect(await projectRoleOf()).toBeUndefined();
    await scim('PATCH', `/Groups/${admins.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: user.id }] }],
    });
    expect(await roleOf()).toBe('admin');
    await scim('PATCH', `/Groups/${admins.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: user.id }] }],
    });
    expect(await roleOf()).toBe('member');

    // A mapping change recomputes too, and deleting the group takes back what it gave.
    await scim('PATCH', `/Groups/${admins.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: user.id }] }],
    });
    expect(await roleOf()).toBe('admin');
    await owner.put(`${API}/admin/scim/group-mappings`, {
      mappings: [{ group: 'DB Admins', org_role: 'member' }],
    });
    expect(await roleOf()).toBe('member');
    await owner.put(`${API}/admin/scim/group-mappings`, {
      mappings: [{ group: 'DB Admins', org_role: 'admin' }],
    });
    expect(await roleOf()).toBe('admin');
    expect((await scim('DELETE', `/Groups/${admins.body.id}`)).status).toBe(204);
    expect(await roleOf()).toBe('member');

    const toOwner = await owner.put(`${API}/admin/scim/group-mappings`, {
      mappings: [{ group: 'Owners', org_role: 'owner' }],
    });
    expect(toOwner.status).toBe(422);
  });

  it('describes itself: ServiceProviderConfig, Schemas and ResourceTypes', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
    });
    expect((await scim('GET', '/Schemas')).body.Resources.map((s: { name: string }) => s.name)).toEqual([
      'User',
      'Group',
    ]);
    expect((await scim('GET', '/ResourceTypes')).body.totalResults).toBe(2);
  });

  it("keeps each organization's users apart, and a new token replaces the old at once", async () => {
    const other = await t.createOrg('Elsewhere');
    const otherToken = (await other.owner.post(`${API}/admin/scim/token`)).body.token;
    const mine = (await scim('GET', '/Users?count=1')).body.Resources[0];
    expect((await scim('GET', `/Users/${mine.id}`, undefined, { token: otherToken })).status).toBe(404);
    const replaced = (await other.owner.post(`${API}/admin/scim/token`)).body.token;
    expect((await scim('GET', '/Users', undefined, { token: otherToken })).status).toBe(401);
    expect((await scim('GET', '/Users', undefined, { token: replaced })).status).toBe(200);
    // SCIM never accepts API keys or sessions, nor the SCIM token /api/v1.
    const key = await t.keyClient(owner, ['admin']);
    expect((await scim('GET', '/Users', undefined, { token: key.secret })).status).toBe(401);
    const withToken = await t.app.inject({
      method: 'GET',
      url: `${API}/projects`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(withToken.statusCode).toBe(401);
  });

  it('lets only organization admins see and change SCIM settings; the token is shown once', async () => {
    const member = await t.createUser(orgId, 'member');
    expect((await member.get(`${API}/admin/scim`)).status).toBe(403);
    expect((await member.post(`${API}/admin/scim/token`)).status).toBe(403);
    expect((await member.put(`${API}/admin/scim/group-mappings`, { mappings: [] })).status).toBe(403);
    const readKey = await t.keyClient(owner, ['read']);
    expect((await readKey.get(`${API}/admin/scim`)).status).toBe(200);
    expect((await readKey.post(`${API}/admin/scim/token`)).status).toBe(403);
    const config = (await owner.get(`${API}/admin/scim`)).body;
    expect(config).toMatchObject({ token_set: true, base_url: 'http://localhost:8000/scim/v2' });
    expect(JSON.stringify(config)).not.toContain(token);
  });
});

describe('SCIM rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ rateLimitStore: (now) => createMemoryRateLimitStore({ now }) });
  });
  afterAll(() => t.close());

  it('answers 429 in the SCIM envelope with Retry-After after 300 calls a minute', async () => {
    const { owner } = await t.createOrg('Busy');
    const token = (await owner.post(`${API}/admin/scim/token`)).body.token;
    let last: { statusCode: number; headers: Record<string, unknown>; json(): unknown } | undefined;
    for (let i = 0; i < 301; i++)
      last = await t.app.inject({
        method: 'GET',
        url: '/scim/v2/ServiceProviderConfig',
        headers: { authorization: `Bearer ${token}` },
      });
    expect(last!.statusCode).toBe(429);
    expect(last!.headers['retry-after']).toBeDefined();
    expect(last!.json()).toMatchObject({ schemas: [SCIM_ERROR], status: '429' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';

const BASE = '/api/v1/projects';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('projects', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let other: Client;

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Acme'));
    ({ owner: other } = await t.createOrg('Other'));
  });
  afterAll(() => t.close());

  it('creates, reads, lists, renames and deletes a project, each with an audit entry', async () => {
    const created = await owner.post(BASE, { name: 'Payments', description: 'Money' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Payments',
      description: 'Money',
      open_drift_reports: 0,
      pending_approvals: 0,
    });
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const id = created.body.id;

    expect((await owner.get(`${BASE}/${id}`)).body.name).toBe('Payments');
    const list = await owner.get(`${BASE}?page=1&page_size=10`);
    expect(list.body).toMatchObject({ total: 1, page: 1, page_size: 10 });
    expect(list.body.items.map((p: { id: string }) => p.id)).toEqual([id]);

    const renamed = await owner.patch(`${BASE}/${id}`, { name: 'Billing', description: null });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Billing', description: null });

    expect((await owner.delete(`${BASE}/${id}`)).status).toBe(204);
    expect((await owner.get(`${BASE}/${id}`)).body).toEqual({ detail: 'Project not found' });

    const audit = await owner.get(`/api/v1/audit?project_id=${id}`);
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual([
      'project.delete',
      'project.update',
      'project.create',
    ]);
  });

  it('lists newest first and paginates with the fixed envelope', async () => {
    for (const name of ['p1', 'p2', 'p3']) expect((await owner.post(BASE, { name })).status).toBe(201);
    const first = await owner.get(`${BASE}?page_size=2`);
    expect(first.body.total).toBe(3);
    expect(first.body.items.map((p: { name: string }) => p.name)).toEqual(['p3', 'p2']);
    const second = await owner.get(`${BASE}?page=2&page_size=2`);
    expect(second.body.items.map((p: { name: string }) => p.name)).toEqual(['p1']);
    const beyond = await owner.get(`${BASE}?page=9&page_size=2`);
    expect(beyond.body).toEqual({ items: [], total: 3, page: 9, page_size: 2 });
  });

  it('refuses bad input with 422 and stores nothing', async () => {
    const before = (await owner.get(BASE)).body.total;
    const cases: [unknown, (string | number)[], string][] = [
      [{ name: '' }, ['body', 'name'], 'string_too_short'],
      [{ name: 'x'.repeat(300) }, ['body', 'name'], 'string_too_long'],
      [{ name: 42 }, ['body', 'name'], 'string_type'],
      [{ name: 'ok', extra: true }, ['body', 'extra'], 'extra_forbidden'],
      [{}, ['body', 'name'], 'missing'],
    ];
    for (const [body, loc, type] of cases) {
      const response = await owner.post(BASE, body);
      expect(response.status).toBe(422);
      expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    for (const query of ['page_size=0', 'page_size=201', 'page_size=abc', 'page=0']) {
      const response = await owner.get(`${BASE}?${query}`);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe('query');
    }
    const badId = await owner.get(`${BASE}/not-a-uuid`);
    expect(badId.status).toBe(422);
    expect(badId.body.detail).toEqual([
      { loc: ['path', 'pid'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
    ]);
    expect((await owner.get(BASE)).body.total).toBe(before);
  });

  it('answers 409 for a duplicate name in one organization, but not across organizations', async () => {
    expect((await owner.post(BASE, { name: 'Shared' })).status).toBe(201);
    const duplicate = await owner.post(BASE, { name: 'shared' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ detail: 'A project with this name already exists in the organization' });
    expect((await other.post(BASE, { name: 'Shared' })).status).toBe(201);
  });

  it('answers 409, never 500, when concurrent requests race to create the same name', async () => {
    const responses = await Promise.all(Array.from({ length: 5 }, () => owner.post(BASE, { name: 'Raced' })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(typeof response.body.detail).toBe('string');
    }
  });

  it("hides another organization's projects (404) and an unknown id (404)", async () => {
    const theirs = (await other.post(BASE, { name: 'Theirs' })).body.id;
    for (const response of [
      await owner.get(`${BASE}/${theirs}`),
      await owner.patch(`${BASE}/${theirs}`, { name: 'Mine now' }),
      await owner.delete(`${BASE}/${theirs}`),
      await owner.get(`${BASE}/${theirs}/members`),
      await owner.get(`${BASE}/${MISSING}`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Project not found' });
    }
    expect((await owner.get(BASE)).body.items.map((p: { id: string }) => p.id)).not.toContain(theirs);
  });

  it('shows org members only their projects, and needs the project admin role to change one', async () => {
    const project = (await owner.post(BASE, { name: 'Members only' })).body.id;
    const member = await t.createUser(orgId, 'member');
    expect((await member.get(`${BASE}/${project}`)).status).toBe(404);
    expect((await member.get(BASE)).body.total).toBe(0);

    const added = await owner.post(`${BASE}/${project}/members`, { user_id: member.user.id, role: 'viewer' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ user_id: member.user.id, role: 'viewer', email: member.user.email });
    expect(
      (await owner.post(`${BASE}/${project}/members`, { user_id: member.user.id, role: 'viewer' })).status,
    ).toBe(409);

    expect((await member.get(`${BASE}/${project}`)).status).toBe(200);
    const refused = await member.patch(`${BASE}/${project}`, { name: 'Renamed by a viewer' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'This action requires the project admin role' });

    expect(
      (await owner.patch(`${BASE}/${project}/members/${member.user.id}`, { role: 'admin' })).body.role,
    ).toBe('admin');
    expect((await member.patch(`${BASE}/${project}`, { name: 'Renamed by an admin' })).status).toBe(200);

    expect((await owner.delete(`${BASE}/${project}/members/${member.user.id}`)).status).toBe(204);
    expect((await member.get(`${BASE}/${project}`)).status).toBe(404);
    expect((await owner.delete(`${BASE}/${project}/members/${member.user.id}`)).status).toBe(404);
  });

  it('refuses a member from another organization', async () => {
    const project = (await owner.post(BASE, { name: 'No strangers' })).body.id;
    const response = await owner.post(`${BASE}/${project}/members`, {
      user_id: other.user.id,
      role: 'viewer',
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'user_id']);
  });

  it('keeps an approval policy with its default', async () => {
    const project = (await owner.post(BASE, { name: 'Policy' })).body.id;
    const initial = await owner.get(`${BASE}/${project}/policy`);
    expect(initial.body.rules).toHaveLength(7);
    expect(initial.body.rules[0]).toEqual({
      operation: 'patch_execute',
      environments: ['production'],
      required_approvals: 1,
      allow_self_approval: false,
    });
    const rules = [
      {
        operation: 'migration_apply',
        environments: ['staging', 'production'],
        required_approvals: 2,
        allow_self_approval: true,
      },
    ];
    expect((await owner.put(`${BASE}/${project}/policy`, { rules })).body).toEqual({ rules });
    expect((await owner.get(`${BASE}/${project}/policy`)).body).toEqual({ rules });

    const twice = await owner.put(`${BASE}/${project}/policy`, { rules: [...rules, ...rules] });
    expect(twice.status).toBe(422);
    expect(twice.body.detail[0].loc).toEqual(['body', 'rules', 1, 'operation']);
    const unknown = await owner.put(`${BASE}/${project}/policy`, {
      rules: [{ ...rules[0], operation: 'drop_everything' }],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'rules', 0, 'operation'], type: 'enum' });
  });

  it('applies key scopes: read lists, write creates, admin deletes', async () => {
    const read = await t.keyClient(owner, ['read']);
    const write = await t.keyClient(owner, ['write']);
    const admin = await t.keyClient(owner, ['admin']);
    expect((await read.get(BASE)).status).toBe(200);
    const refused = await read.post(BASE, { name: 'By a read key' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: "This API key lacks the 'write' scope" });
    const created = await write.post(BASE, { name: 'By a write key' });
    expect(created.status).toBe(201);
    expect((await write.delete(`${BASE}/${created.body.id}`)).status).toBe(403);
    expect((await admin.delete(`${BASE}/${created.body.id}`)).status).toBe(204);
  });

  it('needs authentication', async () => {
    const response = await t.anonymous.get(BASE);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.body).toEqual({ detail: 'Not authenticated' });
  });
});

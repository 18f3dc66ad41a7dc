import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';

const WEBHOOK_FIELDS = [
  'active',
  'created_at',
  'description',
  'disabled_reason',
  'events',
  'id',
  'project_id',
  'updated_at',
  'url',
];

describe('webhooks: CRUD, secrets, validation and authorization', () => {
  let t: TestApp;
  let orgId: string;
  let owner: Client;
  let other: Client;
  let projectId: string;

  beforeAll(async () => {
    // Loopback receivers are refused by default; this suite checks the refusals too.
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Hooks'));
    ({ owner: other } = await t.createOrg('Elsewhere'));
    projectId = (await owner.post('/api/v1/projects', { name: 'Hooked' })).body.id;
  });
  afterAll(() => t.close());

  const base = () => `/api/v1/projects/${projectId}/webhooks`;
  const create = (client: Client, body: Record<string, unknown> = {}) =>
    client.post(base(), { url: 'https://93.184.215.14/hooks', events: ['patch.executed'], ...body });

  async function projectMember(role: 'admin' | 'developer' | 'viewer'): Promise<Client> {
    const client = await t.createUser(orgId, 'member');
    expect(
      (await owner.post(`/api/v1/projects/${projectId}/members`, { user_id: client.user.id, role })).status,
    ).toBe(201);
    return client;
  }

  it('creates a webhook with its secret shown once, sealed at rest', async () => {
    const created = await create(owner, { description: 'chat', events: ['drift.detected', 'run.failed'] });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);
    expect(created.body).toMatchObject({
      project_id: projectId,
      url: 'https://93.184.215.14/hooks',
      events: ['drift.detected', 'run.failed'],
      description: 'chat',
      active: true,
      disabled_reason: null,
    });
    const fetched = await owner.get(`/api/v1/webhooks/${created.body.id}`);
    expect(fetched.status).toBe(200);
    expect(Object.keys(fetched.body).sort()).toEqual(WEBHOOK_FIELDS);
    const listed = await owner.get(base());
    expect(listed.body.items.map((w: { id: string }) => w.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    const row = await t.store.db
      .selectFrom('webhooks')
      .select('secret_sealed')
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(created.body.secret.slice(6, 20));
    const audited = (await owner.get('/api/v1/audit?action=webhook.create')).body.items;
    expect(audited[0]).toMatchObject({ target_id: created.body.id, project_id: projectId });
    expect(JSON.stringify(audited)).not.toContain(created.body.secret.slice(6));
  });

  it('updates, rotates (a new secret, once) and deletes', async () => {
    const { id, secret } = (await create(owner)).body;
    const updated = await owner.patch(`/api/v1/webhooks/${id}`, {
      events: ['*'],
      active: false,
      description: null,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ events: ['*'], active: false, description: null });
    const rotated = await owner.post(`/api/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    const row = await t.store.db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.previous_secret_expires_at!.getTime() - t.now().getTime()).toBeGreaterThan(23.9 * 3_600_000);
    expect((await owner.delete(`/api/v1/webhooks/${id}`)).status).toBe(204);
    expect((await owner.get(`/api/v1/webhooks/${id}`)).status).toBe(404);
    const actions = (await owner.get(`/api/v1/audit?project_id=${projectId}&page_size=200`)).body.items
      .filter((e: { target_id: string }) => e.target_id === id)
      .map((e: { action: string }) => e.action);
    expect(actions).toEqual(['webhook.delete', 'webhook.rotate_secret', 'webhook.update', 'webhook.create']);
  });

  it('refuses unknown events, bad URLs and refused addresses with 422', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ events: ['patch.exploded'] }, 'events'],
      [{ events: [] }, 'events'],
      [{ url: 'ftp://93.184.215.14/x' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'http://127.0.0.1:9/hook' }, 'url'],
      [{ url: 'http://localhost:9/hook' }, 'url'],
      [{ url: 'http://10.1.2.3/hook' }, 'url'],
      [{ url: 'http://[::1]/hook' }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ url: 'http://metadata.google.internal/' }, 'url'],
      [{ url: 'https://user:pw@93.184.215.14/' }, 'url'],
    ];
    for (const [body, field] of cases) {
      const response = await create(owner, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail[0].loc.slice(0, 2), JSON.stringify(body)).toEqual(['body', field]);
    }
    const { id } = (await create(owner)).body;
    const patched = await owner.patch(`/api/v1/webhooks/${id}`, { url: 'http://192.168.1.1/' });
    expect(patched.status).toBe(422);
    expect(patched.body.detail[0].msg).toContain('private');
    expect((await owner.get(`/api/v1/webhooks/${id}`)).body.url).toBe('https://93.184.215.14/hooks');
  });

  it('is for project admins: viewers and developers are refused, read or write', async () => {
    const { id } = (await create(owner)).body;
    const routes = (hook: string): [string, string, unknown?][] => [
      ['GET', base()],
      ['POST', base(), { url: 'https://93.184.215.14/', events: ['*'] }],
      ['GET', `/api/v1/webhooks/${hook}`],
      ['PATCH', `/api/v1/webhooks/${hook}`, { description: 'x' }],
      ['POST', `/api/v1/webhooks/${hook}/rotate-secret`],
      ['GET', `/api/v1/webhooks/${hook}/deliveries`],
      ['POST', `/api/v1/webhooks/${hook}/test`],
      ['POST', `/api/v1/webhooks/${hook}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`],
      ['DELETE', `/api/v1/webhooks/${hook}`],
    ];
    for (const role of ['viewer', 'developer'] as const) {
      const member = await projectMember(role);
      for (const [method, url, body] of routes(id)) {
        const response = await member.request(method as 'GET', url, body);
        expect(response.status, `${role} ${method} ${url}`).toBe(403);
      }
    }
    const admin = await projectMember('admin');
    expect((await admin.get(`/api/v1/webhooks/${id}`)).status).toBe(200);
    expect((await admin.patch(`/api/v1/webhooks/${id}`, { description: 'by admin' })).status).toBe(200);
  });

  it('needs the admin scope to change and the read scope to see', async () => {
    const { id } = (await create(owner)).body;
    const reader = await t.keyClient(owner, ['read']);
    const writer = await t.keyClient(owner, ['write']);
    const adminKey = await t.keyClient(owner, ['admin']);
    expect((await reader.get(`/api/v1/webhooks/${id}`)).status).toBe(200);
    expect((await reader.get(`/api/v1/webhooks/${id}/deliveries`)).status).toBe(200);
    for (const key of [reader, writer]) {
      expect((await create(key)).status).toBe(403);
      expect((await key.patch(`/api/v1/webhooks/${id}`, { description: 'k' })).status).toBe(403);
      expect((await key.post(`/api/v1/webhooks/${id}/rotate-secret`)).status).toBe(403);
      expect((await key.post(`/api/v1/webhooks/${id}/test`)).status).toBe(403);
      expect((await key.delete(`/api/v1/webhooks/${id}`)).status).toBe(403);
    }
    expect((await create(adminKey)).status).toBe(201);
    expect((await adminKey.patch(`/api/v1/webhooks/${id}`, { description: 'k' })).status).toBe(200);
  });

  it("answers 404 for another organization's webhooks and projects", async () => {
    const { id } = (await create(owner)).body;
    for (const [method, url, body] of [
      ['GET', `/api/v1/webhooks/${id}`],
      ['PATCH', `/api/v1/webhooks/${id}`, { description: 'x' }],
      ['POST', `/api/v1/webhooks/${id}/rotate-secret`],
      ['GET', `/api/v1/webhooks/${id}/deliveries`],
      ['POST', `/api/v1/webhooks/${id}/test`],
      ['DELETE', `/api/v1/webhooks/${id}`],
      ['GET', base()],
      ['POST', base(), { url: 'https://93.184.215.14/', events: ['*'] }],
    ] as [string, string, unknown?][]) {
      const response = await other.request(method as 'GET', url, body);
      expect(response.status, `${method} ${url}`).toBe(404);
    }
    expect((await other.get(`/api/v1/webhooks/${id}`)).body).toEqual({ detail: 'Webhook not found' });
    expect((await owner.get(`/api/v1/webhooks/${id}`)).status).toBe(200);
    expect((await t.anonymous.get(`/api/v1/webhooks/${id}`)).status).toBe(401);
  });
});

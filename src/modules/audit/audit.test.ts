import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp, uniqueEmail } from '../../../test/support/app.ts';
import { createAuditService } from './audit.service.ts';

const BASE = '/api/v1/audit';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const ENTRY_FIELDS = [
  'action',
  'actor_id',
  'actor_label',
  'actor_type',
  'api_key_id',
  'created_at',
  'details',
  'hash',
  'id',
  'ip',
  'outcome',
  'prev_hash',
  'project_id',
  'seq',
  'target_id',
  'target_label',
  'target_type',
  'user_agent',
];

type Entry = Record<string, unknown> & { id: string; action: string; created_at: string };

describe('audit', () => {
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

  const items = async (by: Client, query = '') => {
    const response = await by.get(`${BASE}${query ? `?${query}` : ''}`);
    expect(response.status).toBe(200);
    return response.body.items as Entry[];
  };

  it('records a state change with actor, action, target, project, ip, user agent, outcome and time', async () => {
    const created = await owner.request(
      'POST',
      '/api/v1/projects',
      { name: 'Audited' },
      { 'user-agent': 'audit-test/1.0' },
    );
    expect(created.status).toBe(201);
    const project = created.body;

    const [entry] = await items(owner, `project_id=${project.id}`);
    expect(Object.keys(entry!).sort()).toEqual(ENTRY_FIELDS);
    expect(entry).toMatchObject({
      action: 'project.create',
      outcome: 'success',
      actor_type: 'user',
      actor_id: owner.user.id,
      actor_label: owner.user.email,
      api_key_id: null,
      target_type: 'project',
      target_id: project.id,
      target_label: 'Audited',
      project_id: project.id,
      ip: '127.0.0.1',
      user_agent: 'audit-test/1.0',
      details: {},
    });
    expect(entry!.created_at).toMatch(TIMESTAMP);
    expect(Math.abs(Date.parse(entry!.created_at) - t.now().getTime())).toBeLessThan(5_000);
  });

  it('names the API key when a key acts', async () => {
    const key = await t.keyClient(owner, ['write']);
    const created = await key.post('/api/v1/projects', { name: 'By key' });
    expect(created.status).toBe(201);
    const [entry] = await items(owner, `project_id=${created.body.id}`);
    expect(entry).toMatchObject({
      action: 'project.create',
      actor_type: 'api_key',
      actor_id: owner.user.id,
      api_key_id: key.keyId,
    });
    const [keyCreated] = await items(owner, 'action=api_key.create');
    expect(keyCreated).toMatchObject({
      target_type: 'api_key',
      target_id: key.keyId,
      details: { scopes: ['write'] },
    });
    expect(JSON.stringify(keyCreated)).not.toContain(key.secret.split('_')[2]);
  });

  it('filters by project_id, actor_id, action, from and to', async () => {
    const { orgId: filterOrg, owner: boss } = await t.createOrg('Filters');
    const dev = await t.createUser(filterOrg, 'member');
    const a = (await boss.post('/api/v1/projects', { name: 'A' })).body.id;
    t.advance(10 * 60_000);
    const middle = t.now();
    const b = (await dev.post('/api/v1/projects', { name: 'B' })).body.id;
    expect((await boss.patch(`/api/v1/projects/${a}`, { name: 'A2' })).status).toBe(200);
    t.advance(10 * 60_000);
    const late = t.now();
    expect((await boss.delete(`/api/v1/projects/${b}`)).status).toBe(204);

    const actions = (entries: Entry[]) => entries.map((e) => e.action);
    expect(actions(await items(boss, `project_id=${a}`))).toEqual(['project.update', 'project.create']);
    expect(actions(await items(boss, `project_id=${b}`))).toEqual(['project.delete', 'project.create']);
    const byDev = await items(boss, `actor_id=${dev.user.id}`);
    expect(actions(byDev)).toEqual(['project.create']);
    expect(byDev[0]!.project_id).toBe(b);
    expect((await items(boss, 'action=project.update')).map((e) => e.target_id)).toEqual([a]);
    expect(await items(boss, 'action=no.such.action')).toEqual([]);

    // from is inclusive, to exclusive; any ISO 8601 form with an offset is accepted.
    const since = await items(boss, `from=${encodeURIComponent(middle.toISOString())}&action=project.create`);
    expect(since.map((e) => e.project_id)).toEqual([b]);
    const until = await items(boss, `to=${encodeURIComponent(middle.toISOString())}&action=project.create`);
    expect(until.map((e) => e.project_id)).toEqual([a]);
    const window = await items(
      boss,
      `from=${encodeURIComponent(middle.toISOString())}&to=${encodeURIComponent(late.toISOString())}`,
    );
    expect(actions(window)).toEqual(['project.update', 'project.create']);
    const plusTwo = new Date(middle.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const sinceOffset = await items(boss, `from=${encodeURIComponent(plusTwo)}&action=project.create`);
    expect(sinceOffset.map((e) => e.project_id)).toEqual([b]);

    for (const query of [
      'from=yesterday',
      'to=2026-01-01T00:00:00',
      'project_id=not-a-uuid',
      'actor_id=42',
    ]) {
      const response = await boss.get(`${BASE}?${query}`);
      expect(response.status, query).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['query', query.split('=')[0]]);
    }
  });

  it('paginates newest first with the fixed envelope', async () => {
    const { owner: pager } = await t.createOrg('Pager');
    for (const name of ['one', 'two', 'three'])
      expect((await pager.post('/api/v1/projects', { name })).status).toBe(201);
    const all = await pager.get(`${BASE}?action=project.create`);
    expect(all.body.total).toBe(3);
    expect(all.body.items.map((e: Entry) => e.target_label)).toEqual(['three', 'two', 'one']);
    const first = await pager.get(`${BASE}?action=project.create&page_size=2`);
    expect(first.body).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(first.body.items.map((e: Entry) => e.target_label)).toEqual(['three', 'two']);
    const second = await pager.get(`${BASE}?action=project.create&page=2&page_size=2`);
    expect(second.body.items.map((e: Entry) => e.target_label)).toEqual(['one']);
    expect((await pager.get(`${BASE}?action=project.create&page=3&page_size=2`)).body).toEqual({
      items: [],
      total: 3,
      page: 3,
      page_size: 2,
    });
    for (const query of ['page=0', 'page_size=0', 'page_size=201']) {
      const response = await pager.get(`${BASE}?${query}`);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe('query');
    }
  });

  it('is for organization admins only', async () => {
    const member = await t.createUser(orgId, 'member');
    const refused = await member.get(BASE);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'This action requires the organization admin role' });
    const admin = await t.createUser(orgId, 'admin');
    expect((await admin.get(BASE)).status).toBe(200);
    const anonymous = await t.anonymous.get(BASE);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Not authenticated' });
  });

  it('records a refused request (403) with outcome denied, and not an unauthenticated one', async () => {
    const member = await t.createUser(orgId, 'member');
    expect((await member.get(BASE)).status).toBe(403);
    expect((await t.anonymous.get(BASE)).status).toBe(401);
    // Recorded once the answer is sent: wait for it.
    let denied: Entry[] = [];
    for (let tries = 0; tries < 50 && denied.length === 0; tries++) {
      denied = (await items(owner, `action=request.denied&actor_id=${member.user.id}`)) as Entry[];
      if (denied.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({
      actor_type: 'user',
      actor_id: member.user.id,
      outcome: 'denied',
      details: { method: 'GET', route: '/api/v1/audit', path: '/api/v1/audit', required: 'audit.read' },
    });
    expect(await items(owner, 'action=request.denied&page_size=200')).not.toContainEqual(
      expect.objectContaining({ actor_type: 'anonymous' }),
    );
  });

  it("never shows another organization's entries", async () => {
    const theirs = (await other.post('/api/v1/projects', { name: 'Secret plans' })).body.id;
    expect(await items(owner, `project_id=${theirs}`)).toEqual([]);
    expect(await items(owner, `actor_id=${other.user.id}`)).toEqual([]);
    const mine = await items(owner, 'page_size=200');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.filter((e) => e.actor_id === other.user.id || e.target_id === theirs)).toEqual([]);
    expect(JSON.stringify(mine)).not.toContain('Secret plans');
    expect((await items(other, `project_id=${theirs}`)).map((e) => e.action)).toEqual(['project.create']);
  });

  it('writes no success entry for a change that fails', async () => {
    expect((await owner.post('/api/v1/projects', { name: 'Unique' })).status).toBe(201);
    const before = (await owner.get(`${BASE}?action=project.create`)).body.total;
    const duplicate = await owner.post('/api/v1/projects', { name: 'UNIQUE' });
    expect(duplicate.status).toBe(409);
    expect((await owner.get(`${BASE}?action=project.create`)).body.total).toBe(before);

    const userBefore = (await owner.get(`${BASE}?action=user.create`)).body.total;
    const twin = await owner.post('/api/v1/users', {
      email: owner.user.email,
      name: 'Twin',
      org_role: 'member',
      password: 'long enough pw',
    });
    expect(twin.status).toBe(409);
    expect((await owner.get(`${BASE}?action=user.create`)).body.total).toBe(userBefore);
  });

  it('writes its entry in the transaction of the change: a rollback takes the entry with it', async () => {
    const audit = createAuditService({ db: t.store.db, now: t.now });
    const actor = {
      principal: {
        userId: owner.user.id,
        orgId,
        orgRole: 'owner' as const,
        email: owner.user.email,
        via: 'session' as const,
        scopes: null,
        sessionId: null,
        apiKeyId: null,
        plan: 'starter' as const,
        customLimits: { perMinute: null, perHour: null },
      },
      ip: '10.0.0.1',
      userAgent: null,
    };
    await expect(
      t.store.db.transaction().execute(async (trx) => {
        await audit.record(trx, actor, { action: 'test.rolled_back' });
        throw new Error('the change failed after its audit entry');
      }),
    ).rejects.toThrow('the change failed');
    expect(await items(owner, 'action=test.rolled_back')).toEqual([]);

    await t.store.db.transaction().execute((trx) => audit.record(trx, actor, { action: 'test.committed' }));
    expect(await items(owner, 'action=test.committed')).toEqual([
      expect.objectContaining({
        actor_id: owner.user.id,
        ip: '10.0.0.1',
        user_agent: null,
        outcome: 'success',
      }),
    ]);
  });

  it('records a failed login with outcome failure, and no session', async () => {
    const target = await t.createUser(orgId, 'member');
    const response = await t.anonymous.request(
      'POST',
      '/api/v1/auth/login',
      { email: target.user.email, password: 'not the password' },
      { 'user-agent': 'brute/0.1' },
    );
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Invalid email or password' });
    expect(response.headers['set-cookie']).toBeUndefined();

    const failures = (await items(owner, 'action=auth.login')).filter((e) => e.outcome === 'failure');
    expect(failures[0]).toMatchObject({
      action: 'auth.login',
      outcome: 'failure',
      actor_type: 'anonymous',
      actor_id: null,
      target_type: 'user',
      target_id: target.user.id,
      ip: '127.0.0.1',
      user_agent: 'brute/0.1',
      details: { reason: 'wrong_password' },
    });
    expect(failures[0]!.created_at).toMatch(TIMESTAMP);

    // An unknown e-mail belongs to no organization: nobody's log shows it, and the address is not stored.
    const unknown = uniqueEmail('nobody');
    expect(
      (await t.anonymous.post('/api/v1/auth/login', { email: unknown, password: 'whatever123' })).status,
    ).toBe(401);
    expect(JSON.stringify(await items(owner, 'page_size=200'))).not.toContain(unknown);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp, uniqueEmail } from '../../../test/support/app.ts';

const BASE = '/api/v1/api-keys';
const MISSING = '00000000-0000-4000-8000-000000000000';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const KEY = /^ak_([0-9A-Za-z]{8})_([0-9A-Za-z]{32,})$/;
const MINUTE = 60_000;

describe('api keys', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let other: Client;

  const newUser = () => ({
    email: uniqueEmail('invited'),
    name: 'Invited',
    org_role: 'member',
    password: 'a good password',
  });

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Acme'));
    ({ owner: other } = await t.createOrg('Other'));
  });
  afterAll(() => t.close());

  it('creates a key with exactly the fields of the contract and the secret once', async () => {
    const created = await owner.post(BASE, { name: '  CI deploy  ', scopes: ['read', 'write'] });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([
      'created_at',
      'expires_at',
      'id',
      'last_used_at',
      'name',
      'prefix',
      'revoked_at',
      'scopes',
      'secret',
    ]);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name: 'CI deploy',
      scopes: ['read', 'write'],
      prefix: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      expires_at: null,
      revoked_at: null,
      created_at: expect.stringMatching(TIMESTAMP),
      last_used_at: null,
      secret: expect.stringMatching(KEY),
    });
    expect(KEY.exec(created.body.secret)?.[1]).toBe(created.body.prefix);
    const { secret, ...key } = created.body;

    const one = await owner.get(`${BASE}/${key.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(key);
    const list = await owner.get(BASE);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, page: 1, page_size: 50 });
    expect(list.body.items).toEqual([key]);
    expect(JSON.stringify([one.body, list.body])).not.toContain(KEY.exec(secret)?.[2]);

    // The store keeps a hash only: no column holds the secret.
    const row = await t.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    const secretPart = KEY.exec(secret)?.[2] ?? '';
    expect(row.prefix).toBe(key.prefix);
    expect(row.secret_hash).not.toBe(secret);
    expect(row.secret_hash).not.toBe(secretPart);
    expect(JSON.stringify(row)).not.toContain(secretPart);

    const audit = await owner.get(`/api/v1/audit?action=api_key.create`);
    expect(audit.body.items[0]).toMatchObject({
      target_id: key.id,
      details: { scopes: ['read', 'write'], prefix: key.prefix },
    });
    expect(JSON.stringify(audit.body)).not.toContain(secretPart);
  });

  it('accepts an expiry in the future, normalised to UTC seconds, and refuses one in the past', async () => {
    const at = new Date(t.now().getTime() + 7 * 24 * 60 * MINUTE);
    at.setUTCMilliseconds(0);
    // The same instant written at +02:00, with fractional seconds.
    const local = `${new Date(at.getTime() + 120 * MINUTE).toISOString().slice(0, 23)}+02:00`;
    const created = await owner.post(BASE, { name: 'Expiring', scopes: ['read'], expires_at: local });
    expect(created.status).toBe(201);
    expect(created.body.expires_at).toBe(`${at.toISOString().slice(0, 19)}Z`);
    expect((await owner.get(`${BASE}/${created.body.id}`)).body.expires_at).toBe(created.body.expires_at);

    const before = (await owner.get(BASE)).body.total;
    const past = await owner.post(BASE, {
      name: 'Already expired',
      scopes: ['read'],
      expires_at: new Date(t.now().getTime() - MINUTE).toISOString(),
    });
    expect(past.status).toBe(422);
    expect(past.body).toEqual({
      detail: [{ loc: ['body', 'expires_at'], msg: 'Must be in the future', type: 'value_error' }],
    });
    expect((await owner.get(BASE)).body.total).toBe(before);
  });

  it('sets last_used_at when a key is used', async () => {
    const key = await t.keyClient(owner, ['read']);
    expect((await owner.get(`${BASE}/${key.keyId}`)).body.last_used_at).toBeNull();
    t.advance(10 * MINUTE);
    const usedAt = t.now().getTime();
    const me = await key.get('/api/v1/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(owner.user.id);
    const after = await owner.get(`${BASE}/${key.keyId}`);
    expect(after.body.last_used_at).toMatch(TIMESTAMP);
    expect(Math.abs(new Date(after.body.last_used_at).getTime() - usedAt)).toBeLessThan(5_000);
    expect(
      new Date(after.body.last_used_at).getTime() - new Date(after.body.created_at).getTime(),
    ).toBeGreaterThan(9 * MINUTE);

    // created_at comes from the same clock as expiry and last use.
    const later = await owner.post(BASE, { name: 'Later', scopes: ['read'] });
    expect(Math.abs(new Date(later.body.created_at).getTime() - t.now().getTime())).toBeLessThan(5_000);
  });

  it('revokes a key with 204: refused at once with 401 and WWW-Authenticate', async () => {
    const key = await t.keyClient(owner, ['admin']);
    expect((await key.get(BASE)).status).toBe(200);
    const revoked = await owner.delete(`${BASE}/${key.keyId}`);
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();

    const refused = await key.get(BASE);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    expect(refused.body).toEqual({ detail: 'API key revoked' });
    expect((await key.delete(`${BASE}/${key.keyId}`)).status).toBe(401);

    const shown = await owner.get(`${BASE}/${key.keyId}`);
    expect(shown.body.revoked_at).toMatch(TIMESTAMP);
    expect(shown.body).not.toHaveProperty('secret');
    const audit = await owner.get(`/api/v1/audit?action=api_key.revoke`);
    expect(audit.body.items[0]).toMatchObject({
      target_id: key.keyId,
      actor_id: owner.user.id,
      actor_type: 'user',
    });
  });

  it('refuses a key after its expiry with 401', async () => {
    const expiresAt = new Date(t.now().getTime() + 5 * MINUTE).toISOString();
    const key = await t.keyClient(owner, ['read'], expiresAt);
    expect((await key.get(BASE)).status).toBe(200);
    t.advance(4 * MINUTE);
    expect((await key.get(BASE)).status).toBe(200);
    t.advance(2 * MINUTE);
    const expired = await key.get(BASE);
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toBe('Bearer');
    expect(expired.body).toEqual({ detail: 'API key expired' });
  });

  it('refuses garbage credentials with 401', async () => {
    const key = await t.keyClient(owner, ['read']);
    const [, prefix] = KEY.exec(key.secret) ?? [];
    for (const authorization of [
      'Bearer nope',
      `Bearer ak_${prefix}_${'0'.repeat(40)}`,
      `Bearer ak_${prefix}_short`,
      `Bearer ak_zzzzzzzz_${'A'.repeat(40)}`,
      `Bearer ${key.secret}x`,
      'Basic x',
      `Basic ${key.secret}`,
      'Bearer',
      '',
    ]) {
      const response = await t.anonymous.request('GET', BASE, undefined, { authorization });
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toEqual({ detail: 'Invalid API key' });
    }
    expect(
      (await t.anonymous.request('GET', BASE, undefined, { authorization: `bearer ${key.secret}` })).status,
    ).toBe(200);
    const anonymous = await t.anonymous.get(BASE);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Not authenticated' });
  });

  it('applies scope implication: admin ⊃ write ⊃ read', async () => {
    const admin = await t.keyClient(owner, ['admin']);
    const write = await t.keyClient(owner, ['write']);
    const read = await t.keyClient(owner, ['read']);

    expect((await admin.get(BASE)).status).toBe(200);
    const made = await admin.post(BASE, { name: 'Made by a key', scopes: ['admin'] });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(KEY);
    const audit = await owner.get('/api/v1/audit?action=api_key.create');
    expect(audit.body.items[0]).toMatchObject({
      target_id: made.body.id,
      actor_type: 'api_key',
      api_key_id: admin.keyId,
    });
    expect((await admin.delete(`${BASE}/${made.body.id}`)).status).toBe(204);

    expect((await write.get(BASE)).status).toBe(200);
    expect((await write.post('/api/v1/projects', { name: 'By a write key' })).status).toBe(201);
    const writeDelete = await write.delete(`${BASE}/${read.keyId}`);
    expect(writeDelete.status).toBe(403);
    expect(writeDelete.body).toEqual({ detail: "This API key lacks the 'admin' scope" });
    expect((await write.post(BASE, { name: 'By a write key', scopes: ['read'] })).status).toBe(403);

    expect((await read.get(BASE)).status).toBe(200);
    expect((await read.get(`${BASE}/${read.keyId}`)).status).toBe(200);
    const readPost = await read.post('/api/v1/projects', { name: 'By a read key' });
    expect(readPost.status).toBe(403);
    expect(readPost.body).toEqual({ detail: "This API key lacks the 'write' scope" });
    const readCreates = await read.post(BASE, { name: 'Wider', scopes: ['write'] });
    expect(readCreates.status).toBe(403);
    expect(readCreates.body).toEqual({ detail: "This API key lacks the 'admin' scope" });

    // The refused calls changed nothing: the read key lives, no key was added.
    expect((await owner.get(`${BASE}/${read.keyId}`)).body.revoked_at).toBeNull();
    const names = (await owner.get(`${BASE}?page_size=200`)).body.items.map((k: { name: string }) => k.name);
    expect(names).not.toContain('Wider');
    expect(names).not.toContain('By a write key');
  });

  it('never exceeds its owner: demotion gives 403 at once, deactivation and deletion 401', async () => {
    const admin = await t.createUser(orgId, 'admin');
    const key = await t.keyClient(admin, ['admin']);
    const invited = await key.post('/api/v1/users', newUser());
    expect(invited.status).toBe(201);
    expect(invited.body.org_role).toBe('member');

    expect((await owner.patch(`/api/v1/users/${admin.user.id}`, { org_role: 'member' })).body.org_role).toBe(
      'member',
    );
    const demoted = await key.post('/api/v1/users', newUser());
    expect(demoted.status).toBe(403);
    expect(demoted.body).toEqual({ detail: 'This action requires the organization admin role' });
    expect((await key.get('/api/v1/auth/me')).body.org_role).toBe('member');

    expect((await owner.patch(`/api/v1/users/${admin.user.id}`, { active: false })).status).toBe(200);
    const deactivated = await key.get('/api/v1/auth/me');
    expect(deactivated.status).toBe(401);
    expect(deactivated.headers['www-authenticate']).toBe('Bearer');
    expect(deactivated.body).toEqual({ detail: 'API key owner is deactivated' });

    const doomed = await t.createUser(orgId, 'admin');
    const doomedKey = await t.keyClient(doomed, ['admin']);
    expect((await doomedKey.get('/api/v1/auth/me')).status).toBe(200);
    expect((await owner.delete(`/api/v1/users/${doomed.user.id}`)).status).toBe(204);
    const deleted = await doomedKey.get('/api/v1/auth/me');
    expect(deleted.status).toBe(401);
    expect(deleted.headers['www-authenticate']).toBe('Bearer');
    expect(deleted.body).toEqual({ detail: 'API key revoked' });
  });

  it("hides another user's keys (404), in this organization or another", async () => {
    const member = await t.createUser(orgId, 'member');
    const theirs = await t.keyClient(member, ['read']);
    const foreign = await t.keyClient(other, ['read']);
    for (const id of [theirs.keyId, foreign.keyId, MISSING]) {
      for (const response of [await owner.get(`${BASE}/${id}`), await owner.delete(`${BASE}/${id}`)]) {
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ detail: 'API key not found' });
      }
    }
    expect((await theirs.get(BASE)).status).toBe(200);
    expect((await foreign.get(BASE)).status).toBe(200);
    const mine = (await owner.get(`${BASE}?page_size=200`)).body.items.map((k: { id: string }) => k.id);
    expect(mine).not.toContain(theirs.keyId);
    expect(mine).not.toContain(foreign.keyId);
    expect((await other.get(BASE)).body.items.map((k: { id: string }) => k.id)).toEqual([foreign.keyId]);
    expect((await member.get(BASE)).body.items.map((k: { id: string }) => k.id)).toEqual([theirs.keyId]);
    // Newest first.
    const second = await t.keyClient(member, ['write']);
    expect((await member.get(BASE)).body.items.map((k: { id: string }) => k.id)).toEqual([
      second.keyId,
      theirs.keyId,
    ]);
  });

  it('refuses invalid bodies with 422 and stores nothing', async () => {
    const before = (await owner.get(BASE)).body.total;
    const cases: [unknown, (string | number)[], string][] = [
      [{ name: 'k', scopes: [] }, ['body', 'scopes'], 'too_short'],
      [{ name: 'k', scopes: ['root'] }, ['body', 'scopes', 0], 'enum'],
      [{ name: 'k', scopes: ['read', 'read'] }, ['body', 'scopes'], 'value_error'],
      [{ name: 'k', scopes: ['read'], owner: 'me' }, ['body', 'owner'], 'extra_forbidden'],
      [{ name: 'x'.repeat(300), scopes: ['read'] }, ['body', 'name'], 'string_too_long'],
      [{ name: '', scopes: ['read'] }, ['body', 'name'], 'string_too_short'],
      [{ scopes: ['read'] }, ['body', 'name'], 'missing'],
      [{ name: 'k' }, ['body', 'scopes'], 'missing'],
      [{ name: 'k', scopes: 'read' }, ['body', 'scopes'], 'list_type'],
      [{ name: 'k', scopes: ['read'], expires_at: 'tomorrow' }, ['body', 'expires_at'], 'datetime_parsing'],
      [
        { name: 'k', scopes: ['read'], expires_at: '2099-01-01T00:00:00' },
        ['body', 'expires_at'],
        'datetime_parsing',
      ],
    ];
    for (const [body, loc, type] of cases) {
      const response = await owner.post(BASE, body);
      expect(response.status).toBe(422);
      expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    for (const url of [`${BASE}/not-a-uuid`]) {
      const response = await owner.get(url);
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        detail: [{ loc: ['path', 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }],
      });
    }
    expect((await owner.delete(`${BASE}/not-a-uuid`)).status).toBe(422);
    expect((await owner.get(`${BASE}?page_size=201`)).status).toBe(422);
    expect((await owner.get(BASE)).body.total).toBe(before);
  });

  it('needs authentication', async () => {
    for (const [method, url] of [
      ['GET', BASE],
      ['POST', BASE],
      ['GET', `${BASE}/${MISSING}`],
      ['DELETE', `${BASE}/${MISSING}`],
    ] as const) {
      const response = await t.anonymous.request(
        method,
        url,
        method === 'POST' ? { name: 'k', scopes: ['read'] } : undefined,
      );
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toEqual({ detail: 'Not authenticated' });
    }
  });
});

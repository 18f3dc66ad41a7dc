import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';

const BASE = '/api/v1/orgs/current';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const HOUR = 3_600_000;

describe('organizations', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let other: Client;
  let otherOrgId: string;

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Acme'));
    ({ orgId: otherOrgId, owner: other } = await t.createOrg('Other'));
  });
  afterAll(() => t.close());

  it('shows the caller’s organization on the Starter plan, to every member', async () => {
    const response = await owner.get(BASE);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: orgId,
      name: 'Acme',
      plan: 'starter',
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(response.body.updated_at).toBe(response.body.created_at);

    const member = await t.createUser(orgId, 'member');
    expect((await member.get(BASE)).body).toEqual(response.body);
    const readKey = await t.keyClient(member, ['read']);
    expect((await readKey.get(BASE)).body).toEqual(response.body);
  });

  it('shows each organization only itself', async () => {
    const mine = await owner.get(BASE);
    const theirs = await other.get(BASE);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ id: otherOrgId, name: 'Other', plan: 'starter' });
    expect(mine.body.id).toBe(orgId);
    expect(theirs.body.id).not.toBe(mine.body.id);

    // A rename in one organization leaves the other alone, and is audited only in its own.
    expect((await other.patch(BASE, { name: 'Other Renamed' })).status).toBe(200);
    expect((await owner.get(BASE)).body.name).toBe(mine.body.name);
    const audit = await owner.get('/api/v1/audit?action=org.update');
    expect(audit.body.items.map((e: { target_id: string }) => e.target_id)).not.toContain(otherOrgId);
  });

  it('is renamed by the owner and by an admin, each audited as org.update', async () => {
    t.advance(HOUR);
    const renamed = await owner.patch(BASE, { name: '  Acme Corp  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: orgId, name: 'Acme Corp', plan: 'starter' });
    expect(
      new Date(renamed.body.updated_at).getTime() - new Date(renamed.body.created_at).getTime(),
    ).toBeGreaterThanOrEqual(HOUR - 5_000);
    expect((await owner.get(BASE)).body).toEqual(renamed.body);

    const admin = await t.createUser(orgId, 'admin');
    const byAdmin = await admin.patch(BASE, { name: 'Acme Inc' });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.name).toBe('Acme Inc');

    const adminKey = await t.keyClient(owner, ['admin']);
    const byKey = await adminKey.patch(BASE, { name: 'Acme Holdings' });
    expect(byKey.status).toBe(200);
    expect(byKey.body.name).toBe('Acme Holdings');

    const audit = await owner.get('/api/v1/audit?action=org.update');
    expect(
      audit.body.items.map(
        (e: { actor_id: string; actor_type: string; target_id: string; target_label: string }) => [
          e.actor_id,
          e.actor_type,
          e.target_id,
          e.target_label,
        ],
      ),
    ).toEqual([
      [owner.user.id, 'api_key', orgId, 'Acme Holdings'],
      [admin.user.id, 'user', orgId, 'Acme Inc'],
      [owner.user.id, 'user', orgId, 'Acme Corp'],
    ]);
  });

  it('refuses a rename by a member (403) and by a key without the admin scope (403)', async () => {
    const before = (await owner.get(BASE)).body;
    const member = await t.createUser(orgId, 'member');
    const byMember = await member.patch(BASE, { name: 'Member Org' });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({ detail: 'This action requires the organization admin role' });

    // The owner's key with the write scope still lacks admin; a member's admin key lacks the role.
    for (const [key, detail] of [
      [await t.keyClient(owner, ['write']), "This API key lacks the 'admin' scope"],
      [await t.keyClient(owner, ['read']), "This API key lacks the 'admin' scope"],
      [await t.keyClient(member, ['admin']), 'This action requires the organization admin role'],
    ] as const) {
      const response = await key.patch(BASE, { name: 'Key Org' });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ detail });
    }
    expect((await owner.get(BASE)).body).toEqual(before);
  });

  it('refuses an invalid name with 422 and changes nothing', async () => {
    const before = (await owner.get(BASE)).body;
    const cases: [unknown, (string | number)[], string][] = [
      [{ name: '' }, ['body', 'name'], 'string_too_short'],
      [{ name: '   ' }, ['body', 'name'], 'string_pattern_mismatch'],
      [{ name: 'x'.repeat(101) }, ['body', 'name'], 'string_too_long'],
      [{ name: 42 }, ['body', 'name'], 'string_type'],
      [{ name: 'Fine', plan: 'enterprise' }, ['body', 'plan'], 'extra_forbidden'],
      [{}, ['body', 'name'], 'missing'],
    ];
    for (const [body, loc, type] of cases) {
      const response = await owner.patch(BASE, body);
      expect(response.status).toBe(422);
      expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const malformed = await owner.request('PATCH', BASE, '{"name":', { 'content-type': 'application/json' });
    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual({
      detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
    });
    expect((await owner.get(BASE)).body).toEqual(before);
  });

  it('needs authentication', async () => {
    for (const response of [
      await t.anonymous.get(BASE),
      await t.anonymous.patch(BASE, { name: 'Anonymous' }),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toEqual({ detail: 'Not authenticated' });
    }
  });
});

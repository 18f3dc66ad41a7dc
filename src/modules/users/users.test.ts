import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp, uniqueEmail } from '../../../test/support/app.ts';

const BASE = '/api/v1/users';
const MISSING = '00000000-0000-4000-8000-000000000000';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const USER_FIELDS = [
  'active',
  'created_at',
  'deleted_at',
  'email',
  'id',
  'name',
  'org_role',
  'scim_external_id',
  'two_factor_enabled',
];

describe('users', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let admin: Client;
  let member: Client;
  let other: Client;

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Acme'));
    admin = await t.createUser(orgId, 'admin');
    member = await t.createUser(orgId, 'member');
    ({ owner: other } = await t.createOrg('Other'));
  });
  afterAll(() => t.close());

  /** A new user created through the API by `by`, with the password of the harness. */
  async function newUser(by: Client, org_role: 'owner' | 'admin' | 'member' = 'member', name = 'New Person') {
    const response = await by.post(BASE, {
      email: uniqueEmail('new'),
      name,
      org_role,
      password: 'correct horse battery',
    });
    expect(response.status).toBe(201);
    return response.body as { id: string; email: string; name: string };
  }

  it('creates a user with exactly the fields of the contract, who can then sign in', async () => {
    const email = uniqueEmail('Mixed.Case');
    const created = await owner.post(BASE, {
      email,
      name: '  Ada Lovelace ',
      org_role: 'admin',
      password: 'sufficiently long',
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(USER_FIELDS);
    expect(created.body).toMatchObject({
      email: email.toLowerCase(),
      name: 'Ada Lovelace',
      org_role: 'admin',
      active: true,
      scim_external_id: null,
      two_factor_enabled: false,
      deleted_at: null,
    });
    expect(created.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(created.body.created_at).toMatch(TIMESTAMP);

    const signedIn = await t.login(email, 'sufficiently long');
    expect(signedIn.user.id).toBe(created.body.id);

    const read = await owner.get(`${BASE}/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const audit = await owner.get(`/api/v1/audit?action=user.create&actor_id=${owner.user.id}`);
    expect(audit.body.items[0]).toMatchObject({
      target_type: 'user',
      target_id: created.body.id,
      outcome: 'success',
    });
  });

  it('lists the users of the organization only, newest first, with the page envelope', async () => {
    const a = await newUser(owner);
    const b = await newUser(owner);
    const first = await owner.get(`${BASE}?page_size=2`);
    expect(first.status).toBe(200);
    expect(first.body.page).toBe(1);
    expect(first.body.page_size).toBe(2);
    expect(first.body.items.map((u: { id: string }) => u.id)).toEqual([b.id, a.id]);
    for (const item of first.body.items) expect(Object.keys(item).sort()).toEqual(USER_FIELDS);

    const all = await owner.get(`${BASE}?page_size=200`);
    expect(all.body.total).toBe(all.body.items.length);
    const ids = all.body.items.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([owner.user.id, admin.user.id, member.user.id, a.id, b.id]));
    expect(ids).not.toContain(other.user.id);

    // Members may read the directory of their organization.
    expect((await member.get(BASE)).body.total).toBe(all.body.total);
    expect((await owner.get(`${BASE}?page=999&page_size=2`)).body).toEqual({
      items: [],
      total: all.body.total,
      page: 999,
      page_size: 2,
    });
  });

  it('refuses bad input with 422 in the validation shape and stores nothing', async () => {
    const before = (await owner.get(BASE)).body.total;
    const good = {
      email: uniqueEmail('valid'),
      name: 'Valid',
      org_role: 'member',
      password: 'long enough pw',
    };
    const cases: [unknown, (string | number)[], string][] = [
      [{ ...good, email: 'not-an-email' }, ['body', 'email'], 'value_error'],
      [{ ...good, password: 'short' }, ['body', 'password'], 'string_too_short'],
      [{ ...good, is_superuser: true }, ['body', 'is_superuser'], 'extra_forbidden'],
      [{ ...good, org_role: 'superadmin' }, ['body', 'org_role'], 'enum'],
      [{ ...good, name: '' }, ['body', 'name'], 'string_too_short'],
      [{ email: good.email, name: 'x', org_role: 'member' }, ['body', 'password'], 'missing'],
    ];
    for (const [body, loc, type] of cases) {
      const response = await owner.post(BASE, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const patch = await owner.patch(`${BASE}/${member.user.id}`, { org_role: 'root' });
    expect(patch.status).toBe(422);
    expect(patch.body.detail[0]).toMatchObject({ loc: ['body', 'org_role'], type: 'enum' });
    const unknown = await owner.patch(`${BASE}/${member.user.id}`, { email: 'x@example.com' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'extra_forbidden' });
    const active = await owner.patch(`${BASE}/${member.user.id}`, { active: 'no' });
    expect(active.status).toBe(422);
    expect(active.body.detail[0]).toMatchObject({ loc: ['body', 'active'], type: 'bool_type' });

    const uuidError = { loc: ['path', 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' };
    for (const response of [
      await owner.get(`${BASE}/not-a-uuid`),
      await owner.patch(`${BASE}/not-a-uuid`, { name: 'x' }),
      await owner.delete(`${BASE}/not-a-uuid`),
      await owner.post('/api/v1/admin/users/not-a-uuid/purge'),
    ]) {
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([uuidError]);
    }
    expect((await owner.get(BASE)).body.total).toBe(before);
    expect((await member.get(`${BASE}/${member.user.id}`)).body.name).toBe('A member');
  });

  it('needs authentication on every route', async () => {
    for (const response of [
      await t.anonymous.get(BASE),
      await t.anonymous.post(BASE, {
        email: uniqueEmail(),
        name: 'x',
        org_role: 'member',
        password: 'long enough pw',
      }),
      await t.anonymous.get(`${BASE}/${member.user.id}`),
      await t.anonymous.patch(`${BASE}/${member.user.id}`, { name: 'x' }),
      await t.anonymous.delete(`${BASE}/${member.user.id}`),
      await t.anonymous.post(`/api/v1/admin/users/${member.user.id}/purge`),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toEqual({ detail: 'Not authenticated' });
    }
  });

  it('lets only admins manage users, and only owners hand out the owner role', async () => {
    const body = () => ({
      email: uniqueEmail('x'),
      name: 'X',
      org_role: 'member',
      password: 'long enough pw',
    });
    const byMember = await member.post(BASE, body());
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({ detail: 'This action requires the organization admin role' });
    expect((await member.patch(`${BASE}/${admin.user.id}`, { name: 'Renamed' })).status).toBe(403);
    expect((await member.delete(`${BASE}/${admin.user.id}`)).status).toBe(403);

    // A key never exceeds its owner: the admin scope of a member's key grants no admin role.
    const memberKey = await t.keyClient(member, ['admin']);
    const byKey = await memberKey.post(BASE, body());
    expect(byKey.status).toBe(403);
    expect(byKey.body).toEqual({ detail: 'This action requires the organization admin role' });
    // And a read key of the owner cannot write.
    const readKey = await t.keyClient(owner, ['read']);
    const byReadKey = await readKey.post(BASE, body());
    expect(byReadKey.status).toBe(403);
    expect(byReadKey.body).toEqual({ detail: "This API key lacks the 'admin' scope" });

    const ownerRights = { detail: 'Only an organization owner can grant, change or remove the owner role' };
    const grant = await admin.post(BASE, { ...body(), org_role: 'owner' });
    expect(grant.status).toBe(403);
    expect(grant.body).toEqual(ownerRights);
    const promoted = await newUser(admin, 'member');
    const promote = await admin.patch(`${BASE}/${promoted.id}`, { org_role: 'owner' });
    expect(promote.status).toBe(403);
    expect(promote.body).toEqual(ownerRights);
    const demote = await admin.patch(`${BASE}/${owner.user.id}`, { org_role: 'member' });
    expect(demote.status).toBe(403);
    expect(demote.body).toEqual(ownerRights);
    expect((await admin.delete(`${BASE}/${owner.user.id}`)).status).toBe(403);
    expect((await owner.get(`${BASE}/${owner.user.id}`)).body.org_role).toBe('owner');

    // The admin may create and manage non-owners; the owner may grant the owner role.
    const made = await admin.post(BASE, { ...body(), org_role: 'admin' });
    expect(made.status).toBe(201);
    const byOwner = await owner.patch(`${BASE}/${promoted.id}`, { org_role: 'owner', name: 'Second Owner' });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toMatchObject({ org_role: 'owner', name: 'Second Owner' });
  });

  it("answers 404 for another organization's user and for an unknown id", async () => {
    for (const id of [other.user.id, MISSING]) {
      for (const response of [
        await owner.get(`${BASE}/${id}`),
        await owner.patch(`${BASE}/${id}`, { name: 'Mine now' }),
        await owner.delete(`${BASE}/${id}`),
        await owner.post(`/api/v1/admin/users/${id}/purge`),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ detail: 'User not found' });
      }
    }
    expect((await other.get(`${BASE}/${other.user.id}`)).body.name).not.toBe('Mine now');
  });

  it('answers 409 for a duplicate e-mail, in any case and in any organization', async () => {
    const existing = await newUser(owner);
    for (const [by, email] of [
      [owner, existing.email],
      [owner, existing.email.toUpperCase()],
      [other, existing.email],
    ] as const) {
      const response = await by.post(BASE, {
        email,
        name: 'Twin',
        org_role: 'member',
        password: 'long enough pw',
      });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ detail: 'A user with this email already exists' });
    }
  });

  it('keeps the organization an active owner and nobody locks themselves out', async () => {
    const { owner: solo } = await t.createOrg('Solo');
    const selfDemote = await solo.patch(`${BASE}/${solo.user.id}`, { org_role: 'admin' });
    expect(selfDemote.status).toBe(409);
    expect(selfDemote.body).toEqual({ detail: 'You cannot change your own role or deactivate yourself' });
    const selfDeactivate = await solo.patch(`${BASE}/${solo.user.id}`, { active: false });
    expect(selfDeactivate.status).toBe(409);
    expect(selfDeactivate.body).toEqual({ detail: 'You cannot change your own role or deactivate yourself' });
    const selfDelete = await solo.delete(`${BASE}/${solo.user.id}`);
    expect(selfDelete.status).toBe(409);
    expect(selfDelete.body).toEqual({ detail: 'You cannot delete yourself' });
    // Renaming oneself is no lock-out.
    expect((await solo.patch(`${BASE}/${solo.user.id}`, { name: 'Still Me' })).body).toMatchObject({
      name: 'Still Me',
      org_role: 'owner',
      active: true,
    });
    expect((await solo.get(`${BASE}/${solo.user.id}`)).body).toMatchObject({
      org_role: 'owner',
      active: true,
    });

    // With a second owner, one owner may demote the other; the organization still has an owner.
    const second = await newUser(solo, 'owner');
    const demoted = await solo.patch(`${BASE}/${second.id}`, { org_role: 'member' });
    expect(demoted.status).toBe(200);
    expect(demoted.body.org_role).toBe('member');
  });

  it('never leaves an organization without an owner when two owners demote each other at once', async () => {
    for (let round = 0; round < 8; round++) {
      const { orgId: pairOrg, owner: first } = await t.createOrg(`Pair ${round}`);
      const second = await t.createUser(pairOrg, 'owner');
      const [a, b] = await Promise.all([
        first.patch(`${BASE}/${second.user.id}`, { org_role: 'admin' }),
        second.patch(`${BASE}/${first.user.id}`, { org_role: 'admin' }),
      ]);
      // One wins; the other is refused, as a conflict or, once the winner committed, for want of the owner role.
      expect(
        [a.status, b.status].filter((status) => status === 200),
        `round ${round}`,
      ).toHaveLength(1);
      expect([403, 409]).toContain(a.status === 200 ? b.status : a.status);
      const users = (await first.get(`${BASE}?page_size=200`)).body.items as {
        org_role: string;
        active: boolean;
      }[];
      expect(users.filter((u) => u.org_role === 'owner' && u.active)).toHaveLength(1);
    }
  });

  it('deactivates a user: sessions and keys stop at once; reactivation lets them sign in again', async () => {
    const target = await t.createUser(orgId, 'member');
    const key = await t.keyClient(target, ['read']);
    expect((await target.get('/api/v1/auth/me')).status).toBe(200);
    expect((await key.get('/api/v1/auth/me')).status).toBe(200);

    const deactivated = await admin.patch(`${BASE}/${target.user.id}`, { active: false });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body).toMatchObject({ active: false, deleted_at: null });
    expect((await target.get('/api/v1/auth/me')).status).toBe(401);
    expect((await key.get('/api/v1/auth/me')).status).toBe(401);
    await expect(t.login(target.user.email)).rejects.toThrow(/401/);

    expect((await admin.patch(`${BASE}/${target.user.id}`, { active: true })).body.active).toBe(true);
    expect((await (await t.login(target.user.email)).get('/api/v1/auth/me')).body.id).toBe(target.user.id);
  });

  it('soft-deletes a user: sessions and keys stop at once, GET shows deleted_at, the e-mail is free again', async () => {
    const target = await t.createUser(orgId, 'member');
    const key = await t.keyClient(target, ['read']);
    expect((await key.get(BASE)).status).toBe(200);

    const deleted = await admin.delete(`${BASE}/${target.user.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();

    const session = await target.get('/api/v1/auth/me');
    expect(session.status).toBe(401);
    expect(session.body).toEqual({ detail: 'Session expired or revoked' });
    const byKey = await key.get(BASE);
    expect(byKey.status).toBe(401);
    expect(byKey.body).toEqual({ detail: 'API key revoked' });
    await expect(t.login(target.user.email)).rejects.toThrow(/401/);

    const read = await owner.get(`${BASE}/${target.user.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: target.user.id, email: target.user.email, active: false });
    expect(read.body.deleted_at).toMatch(TIMESTAMP);
    const listed = (await owner.get(`${BASE}?page_size=200`)).body.items.find(
      (u: { id: string }) => u.id === target.user.id,
    );
    expect(listed.deleted_at).toBe(read.body.deleted_at);

    // A deleted user stays deleted: no second delete, no edits.
    expect((await admin.delete(`${BASE}/${target.user.id}`)).status).toBe(404);
    const edit = await admin.patch(`${BASE}/${target.user.id}`, { active: true });
    expect(edit.status).toBe(409);
    expect(edit.body).toEqual({ detail: 'User is deleted' });

    const again = await admin.post(BASE, {
      email: target.user.email,
      name: 'Returning',
      org_role: 'member',
      password: 'long enough pw',
    });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(target.user.id);

    const audit = await owner.get(`/api/v1/audit?action=user.delete&actor_id=${admin.user.id}`);
    expect(audit.body.items[0]).toMatchObject({ target_id: target.user.id, target_label: target.user.email });
  });

  it('purges a deleted user (owners only): personal data gone from the user and the audit labels, ids kept', async () => {
    const email = uniqueEmail('purge-me');
    const name = 'Purgeable Person';
    const created = await admin.post(BASE, { email, name, org_role: 'member', password: 'long enough pw' });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const target = await t.login(email, 'long enough pw');
    expect((await target.post('/api/v1/projects', { name: 'Made by the purged' })).status).toBe(201);
    expect((await admin.patch(`${BASE}/${id}`, { name: `${name} Renamed` })).status).toBe(200);
    expect((await t.anonymous.post('/api/v1/auth/login', { email, password: 'wrong password' })).status).toBe(
      401,
    );

    const live = await owner.post(`/api/v1/admin/users/${id}/purge`);
    expect(live.status).toBe(409);
    expect(live.body).toEqual({ detail: 'Only a deleted user can be purged; delete the user first' });

    expect((await admin.delete(`${BASE}/${id}`)).status).toBe(204);
    const byAdmin = await admin.post(`/api/v1/admin/users/${id}/purge`);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body).toEqual({ detail: 'This action requires the organization owner role' });

    const purged = await owner.post(`/api/v1/admin/users/${id}/purge`);
    expect(purged.status).toBe(200);
    expect(Object.keys(purged.body).sort()).toEqual(USER_FIELDS);
    expect(purged.body.id).toBe(id);
    expect(purged.body.deleted_at).toMatch(TIMESTAMP);
    expect(purged.body.email).not.toContain(email.split('@')[0]);
    expect(purged.body.name).not.toContain('Purgeable');
    expect((await owner.get(`${BASE}/${id}`)).body).toEqual(purged.body);

    const entries = (await owner.get('/api/v1/audit?page_size=200')).body.items as Record<string, unknown>[];
    const aboutThem = entries.filter(
      (e) => e.actor_id === id || (e.target_type === 'user' && e.target_id === id),
    );
    expect(aboutThem.map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'user.create',
        'auth.login',
        'project.create',
        'user.update',
        'user.delete',
        'user.purge',
      ]),
    );
    for (const entry of aboutThem) {
      if (entry.actor_id === id) expect(entry.actor_label).toBe('[purged user]');
      if (entry.target_id === id) expect(entry.target_label).toBe('[purged user]');
    }
    const everything = JSON.stringify(entries);
    expect(everything).not.toContain(email);
    expect(everything).not.toContain('Purgeable');
    // Nobody else was redacted.
    expect(entries.some((e) => e.actor_id === admin.user.id && e.actor_label === admin.user.email)).toBe(
      true,
    );

    expect((await owner.post(`/api/v1/admin/users/${id}/purge`)).status).toBe(200);
    await expect(t.login(email, 'long enough pw')).rejects.toThrow(/401/);
  });
});

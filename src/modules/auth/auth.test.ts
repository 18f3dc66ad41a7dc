import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, TEST_PASSWORD, type TestApp } from '../../../test/support/app.ts';

const AUTH = '/api/v1/auth';
const MISSING = '00000000-0000-4000-8000-000000000000';
const INVALID_LOGIN = { detail: 'Invalid email or password' };
const CSRF_REFUSED = { detail: 'CSRF token missing or invalid' };
const DEAD_SESSION = { detail: 'Session expired or revoked' };
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const HOUR = 3_600_000;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A signed-in browser, seen from the wire: the two cookies as the login set them. */
interface Browser {
  session: string;
  csrf: string;
}

describe('auth', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;

  async function signIn(email: string, password = TEST_PASSWORD) {
    return t.app.inject({ method: 'POST', url: `${AUTH}/login`, payload: { email, password } });
  }

  async function browser(email: string, password = TEST_PASSWORD): Promise<Browser> {
    const response = await signIn(email, password);
    expect(response.statusCode).toBe(200);
    const cookies = Object.fromEntries(response.cookies.map((c) => [c.name, c.value]));
    return { session: cookies.session ?? '', csrf: cookies.csrf_token ?? '' };
  }

  /** A request with the browser's cookies; `csrf` is the X-CSRF-Token sent (none when null). */
  async function call(
    b: Browser,
    method: Method,
    url: string,
    options: { body?: unknown; csrf?: string | null } = {},
  ) {
    const csrf = options.csrf === undefined ? b.csrf : options.csrf;
    const response = await t.app.inject({
      method,
      url,
      cookies: { session: b.session, csrf_token: b.csrf },
      headers: csrf === null ? {} : { 'x-csrf-token': csrf },
      ...(options.body !== undefined && { payload: options.body as object }),
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body ? JSON.parse(response.body) : undefined,
    };
  }

  const sessionsOf = async (b: Browser) =>
    (await call(b, 'GET', `${AUTH}/sessions`)).body.items as { id: string; current: boolean }[];
  const currentSessionId = async (b: Browser) => (await sessionsOf(b)).find((s) => s.current)?.id ?? '';

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Acme'));
  });
  afterAll(() => t.close());

  it('logs in with {user} and sets an HttpOnly session cookie and a readable csrf_token cookie', async () => {
    const member = await t.createUser(orgId, 'member');
    const response = await signIn(member.user.email.toUpperCase());
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      user: {
        id: member.user.id,
        email: member.user.email,
        name: 'A member',
        org_role: 'member',
        active: true,
        scim_external_id: null,
        two_factor_enabled: false,
        created_at: expect.stringMatching(TIMESTAMP),
        deleted_at: null,
      },
    });

    const setCookie = response.headers['set-cookie'] as string[];
    expect(setCookie).toHaveLength(2);
    const session = setCookie.find((c) => c.startsWith('session='));
    const csrf = setCookie.find((c) => c.startsWith('csrf_token='));
    expect(session).toBeDefined();
    expect(csrf).toBeDefined();
    const attributes = (cookie: string) => cookie.split(';').map((part) => part.trim().toLowerCase());
    expect(attributes(session!)).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
    expect(attributes(csrf!)).toEqual(expect.arrayContaining(['samesite=lax', 'path=/']));
    expect(attributes(csrf!)).not.toContain('httponly');
    // The harness runs with cookieSecure false (COOKIE_SECURE=false): no Secure attribute.
    for (const cookie of setCookie) expect(attributes(cookie)).not.toContain('secure');

    // Both cookies expire with the session, 24 hours after the login.
    const expires = new Date(/Expires=([^;]+)/.exec(session!)?.[1] ?? '').getTime();
    expect(Math.abs(expires - (t.now().getTime() + 24 * HOUR))).toBeLessThan(5_000);

    const values = Object.fromEntries(response.cookies.map((c) => [c.name, c.value]));
    expect(values.session).toMatch(/^[\w-]{43}$/);
    expect(values.csrf_token).toMatch(/^[\w-]{43}\.[\w-]{43}$/);
    expect(values.csrf_token).not.toBe(values.session);
  });

  it('refuses a wrong password and an unknown e-mail with the same 401', async () => {
    const member = await t.createUser(orgId, 'member');
    for (const response of [
      await signIn(member.user.email, 'not the password'),
      await signIn('nobody-at-all@example.com'),
    ]) {
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(response.body)).toEqual(INVALID_LOGIN);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    const failures = await owner.get('/api/v1/audit?action=auth.login&page_size=200');
    expect(
      failures.body.items.filter(
        (e: { outcome: string; target_id: string }) =>
          e.outcome === 'failure' && e.target_id === member.user.id,
      ),
    ).toEqual([expect.objectContaining({ details: { reason: 'wrong_password' } })]);
  });

  it('validates the login body', async () => {
    const missing = await t.app.inject({
      method: 'POST',
      url: `${AUTH}/login`,
      payload: { email: 'a@example.com' },
    });
    expect(missing.statusCode).toBe(422);
    expect(JSON.parse(missing.body)).toEqual({
      detail: [{ loc: ['body', 'password'], msg: 'Field required', type: 'missing' }],
    });
    const extra = await t.app.inject({
      method: 'POST',
      url: `${AUTH}/login`,
      payload: { email: 'a@example.com', password: 'x', remember: true },
    });
    expect(extra.statusCode).toBe(422);
    expect(JSON.parse(extra.body).detail).toContainEqual(
      expect.objectContaining({ loc: ['body', 'remember'], type: 'extra_forbidden' }),
    );
  });

  it('refuses a deactivated user and a deleted user with the same 401, and ends their sessions', async () => {
    const deactivated = await t.createUser(orgId, 'member');
    const deleted = await t.createUser(orgId, 'member');
    const patched = await owner.patch(`/api/v1/users/${deactivated.user.id}`, { active: false });
    expect(patched.status).toBe(200);
    expect(patched.body.active).toBe(false);
    expect((await owner.delete(`/api/v1/users/${deleted.user.id}`)).status).toBe(204);

    for (const client of [deactivated, deleted]) {
      const response = await signIn(client.user.email);
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(response.body)).toEqual(INVALID_LOGIN);
      expect(response.headers['set-cookie']).toBeUndefined();
      const old = await client.get(`${AUTH}/me`);
      expect(old.status).toBe(401);
      expect(old.body).toEqual(DEAD_SESSION);
    }

    // Reactivated, the user signs in again.
    expect((await owner.patch(`/api/v1/users/${deactivated.user.id}`, { active: true })).status).toBe(200);
    expect((await signIn(deactivated.user.email)).statusCode).toBe(200);
  });

  it('makes a new session at every login and marks the current one', async () => {
    const member = await t.createUser(orgId, 'member');
    const first = await browser(member.user.email);
    const second = await browser(member.user.email);
    expect(second.session).not.toBe(first.session);
    expect(second.csrf).not.toBe(first.csrf);

    const listed = await call(first, 'GET', `${AUTH}/sessions`);
    expect(listed.status).toBe(200);
    // The harness client signed in once too: three sessions, newest first.
    expect(listed.body).toMatchObject({ total: 3, page: 1, page_size: 50 });
    const [newest] = listed.body.items;
    expect(Object.keys(newest).sort()).toEqual([
      'created_at',
      'current',
      'expires_at',
      'id',
      'ip',
      'last_seen_at',
      'user_agent',
    ]);
    expect(newest.expires_at).toMatch(TIMESTAMP);

    const firstId = await currentSessionId(first);
    const secondId = await currentSessionId(second);
    expect(firstId).not.toBe('');
    expect(secondId).not.toBe('');
    expect(firstId).not.toBe(secondId);
    expect(
      listed.body.items.filter((s: { current: boolean }) => s.current).map((s: { id: string }) => s.id),
    ).toEqual([firstId]);
    expect(newest.id).toBe(secondId);
    expect(newest.current).toBe(false);
  });

  it('logs out with 204, clears the cookies, and the old cookie is refused', async () => {
    const member = await t.createUser(orgId, 'member');
    const b = await browser(member.user.email);
    const response = await call(b, 'POST', `${AUTH}/logout`);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const cleared = response.headers['set-cookie'] as string[];
    expect(cleared.map((c) => c.split('=')[0]).sort()).toEqual(['csrf_token', 'session']);
    for (const cookie of cleared) expect(cookie).toMatch(/Expires=Thu, 01 Jan 1970/);

    const after = await call(b, 'GET', `${AUTH}/me`);
    expect(after.status).toBe(401);
    expect(after.headers['www-authenticate']).toBe('Bearer');
    expect(after.body).toEqual(DEAD_SESSION);
    expect((await call(b, 'POST', `${AUTH}/logout`)).status).toBe(401);
  });

  it('refuses a mutating session request without, with a wrong or with another session’s CSRF token', async () => {
    const member = await t.createUser(orgId, 'member');
    const b = await browser(member.user.email);
    const sameUserOther = await browser(member.user.email);
    const otherUser = await browser((await t.createUser(orgId, 'member')).user.email);
    const keysBefore = (await call(b, 'GET', '/api/v1/api-keys')).body.total;

    for (const csrf of [null, '', 'wrong', sameUserOther.csrf, otherUser.csrf, `${b.csrf}x`]) {
      const renamed = await call(b, 'PATCH', `${AUTH}/me`, { body: { name: 'Forged' }, csrf });
      expect(renamed.status).toBe(403);
      expect(renamed.body).toEqual(CSRF_REFUSED);
      const key = await call(b, 'POST', '/api/v1/api-keys', {
        body: { name: 'Forged', scopes: ['read'] },
        csrf,
      });
      expect(key.status).toBe(403);
      expect(key.body).toEqual(CSRF_REFUSED);
      const revoke = await call(b, 'DELETE', `${AUTH}/sessions/${await currentSessionId(sameUserOther)}`, {
        csrf,
      });
      expect(revoke.status).toBe(403);
      expect(revoke.body).toEqual(CSRF_REFUSED);
      expect((await call(b, 'POST', `${AUTH}/logout`, { csrf })).status).toBe(403);
    }

    // Another session's token sent as both the cookie and the header: still bound to the wrong session.
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `${AUTH}/me`,
      cookies: { session: b.session, csrf_token: otherUser.csrf },
      headers: { 'x-csrf-token': otherUser.csrf },
      payload: { name: 'Forged' },
    });
    expect(moved.statusCode).toBe(403);
    expect(JSON.parse(moved.body)).toEqual(CSRF_REFUSED);
    // The right header without the cookie is not a double submit either.
    const noCookie = await t.app.inject({
      method: 'PATCH',
      url: `${AUTH}/me`,
      cookies: { session: b.session },
      headers: { 'x-csrf-token': b.csrf },
      payload: { name: 'Forged' },
    });
    expect(noCookie.statusCode).toBe(403);

    // Nothing was stored, and every session is still alive.
    const me = await call(b, 'GET', `${AUTH}/me`, { csrf: null });
    expect(me.status).toBe(200);
    expect(me.body.name).toBe('A member');
    expect((await call(b, 'GET', '/api/v1/api-keys', { csrf: null })).body.total).toBe(keysBefore);
    expect((await call(sameUserOther, 'GET', `${AUTH}/me`)).status).toBe(200);

    // With the right token the same change goes through.
    const renamed = await call(b, 'PATCH', `${AUTH}/me`, { body: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
  });

  it('changes the name with PATCH /auth/me and validates it', async () => {
    const member = await t.createUser(orgId, 'member');
    const response = await member.patch(`${AUTH}/me`, { name: '  Ada Lovelace  ' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: member.user.id,
      email: member.user.email,
      name: 'Ada Lovelace',
    });
    expect((await member.get(`${AUTH}/me`)).body.name).toBe('Ada Lovelace');

    const cases: [unknown, (string | number)[], string][] = [
      [{ name: '' }, ['body', 'name'], 'string_too_short'],
      [{ name: '   ' }, ['body', 'name'], 'string_pattern_mismatch'],
      [{ name: 'x'.repeat(101) }, ['body', 'name'], 'string_too_long'],
      [{ email: 'new@example.com' }, ['body', 'email'], 'extra_forbidden'],
      [{ new_password: 'short' }, ['body', 'new_password'], 'string_too_short'],
    ];
    for (const [body, loc, type] of cases) {
      const refused = await member.patch(`${AUTH}/me`, body);
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect((await member.get(`${AUTH}/me`)).body.name).toBe('Ada Lovelace');
    const audit = await owner.get(`/api/v1/audit?action=user.update_self&actor_id=${member.user.id}`);
    expect(audit.body.items).toEqual([
      expect.objectContaining({
        target_id: member.user.id,
        details: { name_changed: true, password_changed: false },
      }),
    ]);
  });

  it('changes the password only with the current one, and revokes the other sessions', async () => {
    const member = await t.createUser(orgId, 'member');
    const current = await browser(member.user.email);
    const other = await browser(member.user.email);
    const newPassword = 'a brand new passphrase';

    const missing = await call(current, 'PATCH', `${AUTH}/me`, { body: { new_password: newPassword } });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      detail: [
        { loc: ['body', 'current_password'], msg: 'Field required to change the password', type: 'missing' },
      ],
    });
    const wrong = await call(current, 'PATCH', `${AUTH}/me`, {
      body: { current_password: 'not the password', new_password: newPassword },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({
      detail: [
        { loc: ['body', 'current_password'], msg: 'Current password is incorrect', type: 'value_error' },
      ],
    });
    // Refused changes kept the password and the other session.
    expect((await call(other, 'GET', `${AUTH}/me`)).status).toBe(200);
    expect((await signIn(member.user.email, newPassword)).statusCode).toBe(401);

    const changed = await call(current, 'PATCH', `${AUTH}/me`, {
      body: { current_password: TEST_PASSWORD, new_password: newPassword },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.id).toBe(member.user.id);

    expect((await call(current, 'GET', `${AUTH}/me`)).status).toBe(200);
    for (const response of [await call(other, 'GET', `${AUTH}/me`), await member.get(`${AUTH}/me`)]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual(DEAD_SESSION);
    }
    expect((await sessionsOf(current)).map((s) => s.current)).toEqual([true]);

    const old = await signIn(member.user.email);
    expect(old.statusCode).toBe(401);
    expect(JSON.parse(old.body)).toEqual(INVALID_LOGIN);
    expect((await signIn(member.user.email, newPassword)).statusCode).toBe(200);
  });

  it('refuses a password change made with an API key', async () => {
    const member = await t.createUser(orgId, 'member');
    const key = await t.keyClient(member, ['admin']);
    const response = await key.patch(`${AUTH}/me`, {
      current_password: TEST_PASSWORD,
      new_password: 'changed by a key',
    });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ detail: 'A password can only be changed from a signed-in session' });
    expect((await signIn(member.user.email)).statusCode).toBe(200);
    expect((await signIn(member.user.email, 'changed by a key')).statusCode).toBe(401);
    // A key may rename its owner (write scope), a read key may not.
    expect((await key.patch(`${AUTH}/me`, { name: 'Renamed by key' })).body.name).toBe('Renamed by key');
    const read = await t.keyClient(member, ['read']);
    expect((await read.get(`${AUTH}/me`)).body.name).toBe('Renamed by key');
    const refused = await read.patch(`${AUTH}/me`, { name: 'Renamed by read key' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: "This API key lacks the 'write' scope" });
    // Logout is for sessions only.
    const logout = await key.post(`${AUTH}/logout`);
    expect(logout.status).toBe(403);
    expect(logout.body).toEqual({ detail: 'This endpoint needs a signed-in session, not an API key' });
  });

  it('revokes one of your own sessions at once, and hides everyone else’s', async () => {
    const member = await t.createUser(orgId, 'member');
    const mine = await browser(member.user.email);
    const other = await browser(member.user.email);
    const otherId = await currentSessionId(other);

    const revoked = await call(mine, 'DELETE', `${AUTH}/sessions/${otherId}`);
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    const dead = await call(other, 'GET', `${AUTH}/me`);
    expect(dead.status).toBe(401);
    expect(dead.body).toEqual(DEAD_SESSION);
    expect((await sessionsOf(mine)).map((s) => s.id)).not.toContain(otherId);
    expect((await call(mine, 'GET', `${AUTH}/me`)).status).toBe(200);

    // Already revoked, unknown, or someone else's (same organization or not): 404, and theirs lives on.
    const stranger = await browser((await t.createUser(orgId, 'member')).user.email);
    const { owner: foreign } = await t.createOrg('Elsewhere');
    const foreignId = (await foreign.get(`${AUTH}/sessions`)).body.items[0].id;
    for (const id of [otherId, MISSING, await currentSessionId(stranger), foreignId]) {
      const response = await call(mine, 'DELETE', `${AUTH}/sessions/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Session not found' });
    }
    expect((await call(stranger, 'GET', `${AUTH}/me`)).status).toBe(200);
    expect((await foreign.get(`${AUTH}/me`)).status).toBe(200);

    const malformed = await call(mine, 'DELETE', `${AUTH}/sessions/not-a-uuid`);
    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual({
      detail: [{ loc: ['path', 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }],
    });
    // DELETE needs the admin scope of a key (docs/contract.md §3), whatever it deletes.
    const target = await browser(member.user.email);
    const targetId = await currentSessionId(target);
    const writeKey = await t.keyClient(member, ['write']);
    const byWriteKey = await writeKey.delete(`${AUTH}/sessions/${targetId}`);
    expect(byWriteKey.status).toBe(403);
    expect(byWriteKey.body).toEqual({ detail: "This API key lacks the 'admin' scope" });
    expect((await call(target, 'GET', `${AUTH}/me`)).status).toBe(200);
    const adminKey = await t.keyClient(member, ['admin']);
    expect((await adminKey.delete(`${AUTH}/sessions/${targetId}`)).status).toBe(204);
    expect((await call(target, 'GET', `${AUTH}/me`)).status).toBe(401);

    const badPage = await call(mine, 'GET', `${AUTH}/sessions?page_size=0`);
    expect(badPage.status).toBe(422);
    expect(badPage.body.detail[0].loc).toEqual(['query', 'page_size']);
  });

  it('needs authentication', async () => {
    for (const [method, url] of [
      ['GET', `${AUTH}/me`],
      ['PATCH', `${AUTH}/me`],
      ['GET', `${AUTH}/sessions`],
      ['DELETE', `${AUTH}/sessions/${MISSING}`],
      ['POST', `${AUTH}/logout`],
    ] as const) {
      const response = await t.anonymous.request(method, url, method === 'PATCH' ? { name: 'x' } : undefined);
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body).toEqual({ detail: 'Not authenticated' });
    }
    const forged = await call({ session: 'forged', csrf: 'forged' }, 'GET', `${AUTH}/me`);
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual(DEAD_SESSION);
  });

  it('never logs a password, a session cookie, a CSRF token or a key secret', async () => {
    const member = await t.createUser(orgId, 'member');
    const newPassword = 'another secret passphrase';
    const key = await t.keyClient(member, ['admin']);
    const b = await browser(member.user.email);
    expect((await signIn(member.user.email, 'a wrong password to log')).statusCode).toBe(401);
    const changed = await call(b, 'PATCH', `${AUTH}/me`, {
      body: { current_password: TEST_PASSWORD, new_password: newPassword },
    });
    expect(changed.status).toBe(200);
    const again = await browser(member.user.email, newPassword);
    expect((await key.get(`${AUTH}/me`)).status).toBe(200);
    expect(
      (await t.anonymous.request('GET', `${AUTH}/me`, undefined, { authorization: `Bearer ${key.secret}x` }))
        .status,
    ).toBe(401);

    const logged = t.logs.join('\n');
    // The requests above were logged (so the check below looks at something).
    expect(logged).toContain('/api/v1/auth/login');
    expect(logged).toContain('/api/v1/auth/me');
    const secretPart = key.secret.split('_')[2] ?? '';
    expect(secretPart.length).toBeGreaterThanOrEqual(32);
    for (const secret of [
      TEST_PASSWORD,
      newPassword,
      'a wrong password to log',
      b.session,
      b.csrf,
      again.session,
      again.csrf,
      key.secret,
      secretPart,
    ]) {
      expect(logged).not.toContain(secret);
    }
  });

  it('ends a session 24 hours after the login', async () => {
    const member = await t.createUser(orgId, 'member');
    const b = await browser(member.user.email);
    t.advance(23 * HOUR);
    expect((await call(b, 'GET', `${AUTH}/me`)).status).toBe(200);
    t.advance(HOUR + 1_000);
    const expired = await call(b, 'GET', `${AUTH}/me`);
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toBe('Bearer');
    expect(expired.body).toEqual(DEAD_SESSION);
    expect((await call(b, 'PATCH', `${AUTH}/me`, { body: { name: 'Too late' } })).status).toBe(401);
    // A new login gives a new, live session, dated by the service's clock: it ends 24 hours later.
    const fresh = await browser(member.user.email);
    expect((await call(fresh, 'GET', `${AUTH}/me`)).body.name).toBe('A member');
    const listed = (await call(fresh, 'GET', `${AUTH}/sessions`)).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0].current).toBe(true);
    const createdAt = new Date(listed[0].created_at).getTime();
    expect(Math.abs(createdAt - t.now().getTime())).toBeLessThan(5_000);
    expect(new Date(listed[0].expires_at).getTime() - createdAt).toBe(24 * HOUR);
    expect(listed[0].last_seen_at).toBe(listed[0].created_at);
  });
});

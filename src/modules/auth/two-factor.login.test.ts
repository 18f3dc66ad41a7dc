// Signing in with two-factor authentication: the partial token of a password login, the second step
// with a TOTP or a recovery code, replays, clock skew, expiry, the limit of wrong codes, two logins
// racing for one code, and the whole flow over real HTTP with cookies.
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../../../test/support/app.ts';
import { AUTH, twoFactorSuite } from '../../../test/support/two-factor.ts';

const INVALID_CODE = { detail: 'Invalid two-factor code' };
const DEAD_TOKEN = { detail: 'Partial token expired, used up or invalid; sign in again' };

describe('two-factor sign-in', () => {
  const suite = twoFactorSuite('Twofa login');
  const { post, stepNow, code, wrongCodes, toFreshStep, enroll, partialToken, secondStep, auditOf } = suite;

  it('answers a password login of a 2FA user with {partial_token, needs_2fa} and no cookie', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    await enroll(member);
    const response = await post(`${AUTH}/login`, { email: member.user.email, password: TEST_PASSWORD });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ partial_token: expect.stringMatching(/^[\w-]{43}$/), needs_2fa: true });
    expect(response.setCookie).toBeUndefined();
    // A wrong password still gets the plain 401, not a partial token.
    const wrong = await post(`${AUTH}/login`, { email: member.user.email, password: 'not the password' });
    expect(wrong).toMatchObject({ status: 401, body: { detail: 'Invalid email or password' } });
    expect(wrong.body.partial_token).toBeUndefined();
  });

  it('finishes the login with a TOTP code: {user}, both cookies, a new session that works', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { key } = await enroll(member);
    const partial = await partialToken(member.user.email);
    const done = await secondStep(partial, code(key));
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      user: expect.objectContaining({
        id: member.user.id,
        email: member.user.email,
        two_factor_enabled: true,
      }),
    });
    expect(Object.keys(done.cookies).sort()).toEqual(['csrf_token', 'session']);
    const setCookie = done.setCookie as string[];
    expect(setCookie.find((c) => c.startsWith('session='))?.toLowerCase()).toContain('httponly');

    const me = await suite.t.app.inject({ method: 'GET', url: `${AUTH}/me`, cookies: done.cookies });
    expect(me.statusCode).toBe(200);
    expect(JSON.parse(me.body).id).toBe(member.user.id);
    const sessions = await suite.t.app.inject({
      method: 'GET',
      url: `${AUTH}/sessions`,
      cookies: done.cookies,
    });
    const items = JSON.parse(sessions.body).items as { id: string; current: boolean }[];
    // The session of the harness login (before 2FA) and the new one, which is the current one.
    expect(items).toHaveLength(2);
    const current = items.find((s) => s.current);
    expect(current).toBeDefined();

    const logins = await auditOf(member.user.id, 'auth.login');
    expect(logins.at(-1)).toMatchObject({
      outcome: 'success',
      details: { session_id: current!.id, method: 'password', second_factor: 'totp' },
    });
  });

  it('refuses a replayed TOTP code, accepts one step of skew once, and refuses codes further off', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { key } = await enroll(member);
    const step = toFreshStep();

    // Two steps back is outside the window; a wrong code does not kill the partial token.
    const partial = await partialToken(member.user.email);
    expect(await secondStep(partial, code(key, step - 2))).toMatchObject({ status: 401, body: INVALID_CODE });
    // The previous step is accepted (clock skew)...
    expect((await secondStep(partial, code(key, step - 1))).status).toBe(200);
    // ...once.
    const replay = await secondStep(await partialToken(member.user.email), code(key, step - 1));
    expect(replay).toMatchObject({ status: 401, body: INVALID_CODE });
    // The next step is accepted too; after it, the current step counts as earlier and is refused.
    expect((await secondStep(await partialToken(member.user.email), code(key, step + 1))).status).toBe(200);
    const earlier = await secondStep(await partialToken(member.user.email), code(key, step));
    expect(earlier).toMatchObject({ status: 401, body: INVALID_CODE });
    expect(await secondStep(await partialToken(member.user.email), code(key, step + 2))).toMatchObject({
      status: 401,
      body: INVALID_CODE,
    });

    const failures = (await auditOf(member.user.id, 'auth.login.2fa')).map((e) => e.details);
    expect(failures).toEqual([
      expect.objectContaining({ reason: 'wrong_code', failed_attempts: 1 }),
      expect.objectContaining({ reason: 'replayed_code', failed_attempts: 1 }),
      expect.objectContaining({ reason: 'replayed_code', failed_attempts: 1 }),
      expect.objectContaining({ reason: 'wrong_code', failed_attempts: 1 }),
    ]);
  });

  it('accepts a recovery code instead of a TOTP code, once each', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { recovery } = await enroll(member);
    const [first = '', second = ''] = recovery;

    const done = await secondStep(await partialToken(member.user.email), first);
    expect(done.status).toBe(200);
    expect(done.body.user.id).toBe(member.user.id);
    expect(Object.keys(done.cookies).sort()).toEqual(['csrf_token', 'session']);
    // Spent: refused the second time.
    expect(await secondStep(await partialToken(member.user.email), first)).toMatchObject({
      status: 401,
      body: INVALID_CODE,
    });
    // Typed loosely (upper case, no dashes) is the same code.
    const loose = second.replaceAll('-', '').toUpperCase();
    expect((await secondStep(await partialToken(member.user.email), loose)).status).toBe(200);
    expect((await secondStep(await partialToken(member.user.email), second)).status).toBe(401);

    const used = await suite.t.store.db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', member.user.id)
      .where('used_at', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(Number(used.n)).toBe(2);
    const logins = await auditOf(member.user.id, 'auth.login');
    expect(logins.slice(-2).map((e) => e.details)).toEqual([
      expect.objectContaining({ second_factor: 'recovery_code' }),
      expect.objectContaining({ second_factor: 'recovery_code' }),
    ]);
  });

  it('uses a partial token once', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { key } = await enroll(member);
    const step = stepNow();
    const partial = await partialToken(member.user.email);
    expect((await secondStep(partial, code(key, step))).status).toBe(200);
    // A fresh, valid code with the same partial token: refused.
    const again = await secondStep(partial, code(key, step + 1));
    expect(again).toMatchObject({ status: 401, body: DEAD_TOKEN });
    expect(again.setCookie).toBeUndefined();
    // The refusal did not spend the code: with a new partial token it still works.
    expect((await secondStep(await partialToken(member.user.email), code(key, step + 1))).status).toBe(200);
  });

  it('lets a partial token expire after 5 minutes', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { key } = await enroll(member);

    const early = await partialToken(member.user.email);
    suite.t.advance(4 * 60_000 + 50_000);
    expect((await secondStep(early, code(key))).status).toBe(200);

    toFreshStep();
    const late = await partialToken(member.user.email);
    suite.t.advance(5 * 60_000 + 1_000);
    const refused = await secondStep(late, code(key));
    expect(refused).toMatchObject({ status: 401, body: DEAD_TOKEN });
    expect(refused.setCookie).toBeUndefined();
    expect((await auditOf(member.user.id, 'auth.login.2fa')).at(-1)).toMatchObject({
      outcome: 'failure',
      details: expect.objectContaining({ reason: 'token_expired' }),
    });
  });

  it('kills a partial token after 5 wrong codes, even for a right code after', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { key } = await enroll(member);
    const right = code(key);
    const wrongs = wrongCodes(key);

    // Four wrong codes leave the token alive.
    const survivor = await partialToken(member.user.email);
    for (const wrong of wrongs.slice(0, 4)) {
      expect(await secondStep(survivor, wrong)).toMatchObject({ status: 401, body: INVALID_CODE });
    }
    expect((await secondStep(survivor, right)).status).toBe(200);

    // Five wrong codes kill it.
    toFreshStep();
    const victim = await partialToken(member.user.email);
    for (const wrong of wrongs.slice(0, 5)) {
      expect(await secondStep(victim, wrong)).toMatchObject({ status: 401, body: INVALID_CODE });
    }
    const after = await secondStep(victim, code(key));
    expect(after).toMatchObject({ status: 401, body: DEAD_TOKEN });
    expect(after.setCookie).toBeUndefined();
    // The right code was not spent by the dead token.
    expect((await secondStep(await partialToken(member.user.email), code(key))).status).toBe(200);
    expect((await auditOf(member.user.id, 'auth.login.2fa')).at(-1)).toMatchObject({
      details: expect.objectContaining({ reason: 'too_many_attempts' }),
    });
  });

  it('lets only one of two simultaneous logins spend the same code or the same partial token', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { key } = await enroll(member);
    const [a, b] = [await partialToken(member.user.email), await partialToken(member.user.email)];
    const sameCode = await Promise.all([secondStep(a, code(key)), secondStep(b, code(key))]);
    expect(sameCode.map((r) => r.status).sort()).toEqual([200, 401]);

    toFreshStep();
    const shared = await partialToken(member.user.email);
    const step = stepNow();
    const sameToken = await Promise.all([
      secondStep(shared, code(key, step)),
      secondStep(shared, code(key, step + 1)),
    ]);
    expect(sameToken.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('refuses an unknown partial token and the partial token of a user deactivated meanwhile', async () => {
    expect(await secondStep('x'.repeat(43), '123456')).toMatchObject({ status: 401, body: DEAD_TOKEN });
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { key } = await enroll(member);
    const partial = await partialToken(member.user.email);
    expect((await suite.owner.patch(`/api/v1/users/${member.user.id}`, { active: false })).status).toBe(200);
    expect(await secondStep(partial, code(key))).toMatchObject({ status: 401, body: DEAD_TOKEN });
  });

  it('validates the body of /auth/login/2fa', async () => {
    const missing = await post(`${AUTH}/login/2fa`, { partial_token: 'abc' });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      detail: [{ loc: ['body', 'code'], msg: 'Field required', type: 'missing' }],
    });
    const extra = await post(`${AUTH}/login/2fa`, { partial_token: 'abc', code: '123456', remember: true });
    expect(extra.status).toBe(422);
    expect(extra.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'remember'] }));
  });

  it('runs the whole 2FA login over real HTTP with cookies', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { key } = await enroll(member);
    await suite.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = suite.t.app.server.address() as AddressInfo;
    const base = `http://127.0.0.1:${port}`;
    const json = { 'content-type': 'application/json' };

    const first = await fetch(`${base}${AUTH}/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: member.user.email, password: TEST_PASSWORD }),
    });
    expect(first.status).toBe(200);
    expect(first.headers.getSetCookie()).toEqual([]);
    const { partial_token, needs_2fa } = (await first.json()) as {
      partial_token: string;
      needs_2fa: boolean;
    };
    expect(needs_2fa).toBe(true);

    const second = await fetch(`${base}${AUTH}/login/2fa`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ partial_token, code: code(key) }),
    });
    expect(second.status).toBe(200);
    expect(((await second.json()) as { user: { id: string } }).user.id).toBe(member.user.id);
    const jar = Object.fromEntries(
      second.headers.getSetCookie().map((c) => {
        const [pair = ''] = c.split(';');
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
    );
    expect(Object.keys(jar).sort()).toEqual(['csrf_token', 'session']);
    const cookie = `session=${jar.session}; csrf_token=${jar.csrf_token}`;

    const me = await fetch(`${base}${AUTH}/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: member.user.id, two_factor_enabled: true });
    // A mutating call with the session and its CSRF token.
    const renamed = await fetch(`${base}${AUTH}/me`, {
      method: 'PATCH',
      headers: { ...json, cookie, 'x-csrf-token': decodeURIComponent(jar.csrf_token ?? '') },
      body: JSON.stringify({ name: 'Over the wire' }),
    });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { name: string }).name).toBe('Over the wire');
    // The same partial token again, over the wire: refused.
    const replay = await fetch(`${base}${AUTH}/login/2fa`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ partial_token, code: code(key, stepNow() + 1) }),
    });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual(DEAD_TOKEN);
  });
});

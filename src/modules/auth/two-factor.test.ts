import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, TEST_PASSWORD, type TestApp } from '../../../test/support/app.ts';

const AUTH = '/api/v1/auth';
const STEP_MS = 30_000;
const INVALID_CODE = { detail: 'Invalid two-factor code' };
const DEAD_TOKEN = { detail: 'Partial token expired, used up or invalid; sign in again' };

// RFC 6238 written here from the RFC with node:crypto, independently of the library the service uses.
function hotp(key: Buffer, counter: number, digits: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

const totpAtSeconds = (key: Buffer, unixSeconds: number, digits: number) =>
  hotp(key, Math.floor(unixSeconds / 30), digits);

function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text.replace(/=+$/, '')) {
    const index = alphabet.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

describe('RFC 6238 reference implementation of this test', () => {
  it('matches the SHA-1 test vectors of RFC 6238 Appendix B', () => {
    const key = Buffer.from('12345678901234567890', 'ascii');
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [time, expected] of vectors) expect(totpAtSeconds(key, time, 8), String(time)).toBe(expected);
  });

  it('decodes base32 as RFC 4648 does', () => {
    expect(base32Decode('MZXW6YTBOI======').toString()).toBe('foobar');
    expect(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ').toString()).toBe('12345678901234567890');
  });
});

describe('two-factor authentication (TOTP)', () => {
  let t: TestApp;
  let owner: Client;
  let orgId: string;
  let ipCounter = 0;

  /** Each call from its own client address, so that per-IP login limits never get in the way. */
  const nextIp = () => `10.77.${Math.floor(ipCounter / 250)}.${(ipCounter++ % 250) + 1}`;

  async function post(url: string, payload: object) {
    const response = await t.app.inject({ method: 'POST', url, payload, remoteAddress: nextIp() });
    return {
      status: response.statusCode,
      body: response.body ? JSON.parse(response.body) : undefined,
      setCookie: response.headers['set-cookie'],
      cookies: Object.fromEntries(response.cookies.map((c) => [c.name, c.value])),
    };
  }

  const stepNow = () => Math.floor(t.now().getTime() / STEP_MS);
  const code = (key: Buffer, step = stepNow()) => hotp(key, step, 6);
  /** Six-digit codes that match no step near now. */
  const wrongCodes = (key: Buffer) => {
    const near = new Set([-2, -1, 0, 1, 2].map((d) => code(key, stepNow() + d)));
    return ['000000', '111111', '222222', '333333', '444444', '555555', '666666', '777777'].filter(
      (c) => !near.has(c),
    );
  };

  /**
   * Moves the app's clock `steps` time steps ahead, to 1 s past a step boundary: every step used so
   * far is then in the past, and the test has about 29 s before the step changes under it.
   */
  function toFreshStep(steps = 3): number {
    const ms = t.now().getTime();
    t.advance((Math.floor(ms / STEP_MS) + steps) * STEP_MS + 1_000 - ms);
    return stepNow();
  }

  async function enroll(c: Client) {
    const setup = await c.post(`${AUTH}/2fa/setup`);
    expect(setup.status).toBe(200);
    const key = base32Decode(setup.body.secret);
    const enable = await c.post(`${AUTH}/2fa/enable`, { code: code(key) });
    expect(enable.status).toBe(200);
    toFreshStep();
    return { secret: setup.body.secret as string, key, recovery: enable.body.recovery_codes as string[] };
  }

  /** The first step: the partial token of a password login of a user with 2FA. */
  async function partialToken(email: string): Promise<string> {
    const response = await post(`${AUTH}/login`, { email, password: TEST_PASSWORD });
    expect(response.status).toBe(200);
    expect(response.body.needs_2fa).toBe(true);
    return response.body.partial_token;
  }

  const secondStep = (partial_token: string, code: string) =>
    post(`${AUTH}/login/2fa`, { partial_token, code });

  async function auditOf(userId: string, action: string) {
    const response = await owner.get(`/api/v1/audit?action=${action}&page_size=200`);
    expect(response.status).toBe(200);
    return (
      response.body.items as { target_id: string; actor_id: string; outcome: string; details: object }[]
    )
      .filter((e) => e.target_id === userId || e.actor_id === userId)
      .reverse();
  }

  beforeAll(async () => {
    t = await createTestApp();
    ({ orgId, owner } = await t.createOrg('Twofa'));
  });
  afterAll(() => t.close());

  it('sets up a pending seed: base32 secret and an otpauth URL, stored sealed, 2FA still off', async () => {
    const member = await t.createUser(orgId, 'member');
    const setup = await member.post(`${AUTH}/2fa/setup`);
    expect(setup.status).toBe(200);
    expect(Object.keys(setup.body).sort()).toEqual(['otpauth_url', 'secret']);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(setup.body.otpauth_url);
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe(`/dbops:${member.user.email}`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      issuer: 'dbops',
      secret: setup.body.secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    expect((await member.get(`${AUTH}/me`)).body.two_factor_enabled).toBe(false);

    const row = await t.store.db
      .selectFrom('users')
      .select(['totp_secret', 'totp_pending_secret'])
      .where('id', '=', member.user.id)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret).toBeNull();
    expect(row.totp_pending_secret).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(row.totp_pending_secret).not.toContain(setup.body.secret);

    // A second setup replaces the pending seed: a code of the first one no longer enables.
    const again = await member.post(`${AUTH}/2fa/setup`);
    expect(again.body.secret).not.toBe(setup.body.secret);
    const stale = await member.post(`${AUTH}/2fa/enable`, { code: code(base32Decode(setup.body.secret)) });
    expect(stale.status).toBe(422);
    const enabled = await member.post(`${AUTH}/2fa/enable`, { code: code(base32Decode(again.body.secret)) });
    expect(enabled.status).toBe(200);
  });

  it('enables with a valid code only, returns ten distinct recovery codes, and shows two_factor_enabled', async () => {
    const member = await t.createUser(orgId, 'member');
    expect(await member.post(`${AUTH}/2fa/enable`, { code: '123456' })).toMatchObject({
      status: 409,
      body: { detail: 'No two-factor setup in progress: call POST /auth/2fa/setup first' },
    });
    const setup = await member.post(`${AUTH}/2fa/setup`);
    const key = base32Decode(setup.body.secret);
    const right = code(key);
    const [wrong = ''] = wrongCodes(key);
    const refused = await member.post(`${AUTH}/2fa/enable`, { code: wrong });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      detail: [{ loc: ['body', 'code'], msg: 'Invalid two-factor code', type: 'value_error' }],
    });
    expect((await member.get(`${AUTH}/me`)).body.two_factor_enabled).toBe(false);

    const enabled = await member.post(`${AUTH}/2fa/enable`, { code: right });
    expect(enabled.status).toBe(200);
    const codes = enabled.body.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);

    expect((await member.get(`${AUTH}/me`)).body.two_factor_enabled).toBe(true);
    expect((await owner.get(`/api/v1/users/${member.user.id}`)).body.two_factor_enabled).toBe(true);
    expect(await member.post(`${AUTH}/2fa/setup`)).toMatchObject({
      status: 409,
      body: { detail: 'Two-factor authentication is already enabled' },
    });
    expect((await member.post(`${AUTH}/2fa/enable`, { code: right })).status).toBe(409);

    // The code that enabled 2FA counts as used: it cannot sign in.
    const partial = await partialToken(member.user.email);
    expect(await secondStep(partial, right)).toMatchObject({ status: 401, body: INVALID_CODE });
  });

  it('stores the TOTP seed sealed and the recovery codes hashed, never in plain text', async () => {
    const member = await t.createUser(orgId, 'member');
    const { secret, key, recovery } = await enroll(member);
    const row = await t.store.db
      .selectFrom('users')
      .select(['totp_secret', 'totp_pending_secret', 'totp_last_step'])
      .where('id', '=', member.user.id)
      .executeTakeFirstOrThrow();
    expect(row.totp_pending_secret).toBeNull();
    expect(row.totp_secret).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    for (const form of [secret, secret.toLowerCase(), key.toString('hex'), key.toString('base64url')]) {
      expect(row.totp_secret).not.toContain(form);
    }
    expect(row.totp_last_step).toBeGreaterThan(0);

    const stored = await t.store.db
      .selectFrom('recovery_codes')
      .select(['code_hash', 'used_at'])
      .where('user_id', '=', member.user.id)
      .execute();
    expect(stored).toHaveLength(10);
    const hashes = stored.map((r) => r.code_hash).join(' ');
    for (const c of recovery) {
      expect(hashes).not.toContain(c);
      expect(hashes).not.toContain(c.replaceAll('-', ''));
    }
    for (const r of stored) expect(r.code_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers a password login of a 2FA user with {partial_token, needs_2fa} and no cookie', async () => {
    const member = await t.createUser(orgId, 'member');
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
    const member = await t.createUser(orgId, 'member');
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

    const me = await t.app.inject({ method: 'GET', url: `${AUTH}/me`, cookies: done.cookies });
    expect(me.statusCode).toBe(200);
    expect(JSON.parse(me.body).id).toBe(member.user.id);
    const sessions = await t.app.inject({ method: 'GET', url: `${AUTH}/sessions`, cookies: done.cookies });
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
    const member = await t.createUser(orgId, 'member');
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
    const member = await t.createUser(orgId, 'member');
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

    const used = await t.store.db
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
    const member = await t.createUser(orgId, 'member');
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
    const member = await t.createUser(orgId, 'member');
    const { key } = await enroll(member);

    const early = await partialToken(member.user.email);
    t.advance(4 * 60_000 + 50_000);
    expect((await secondStep(early, code(key))).status).toBe(200);

    toFreshStep();
    const late = await partialToken(member.user.email);
    t.advance(5 * 60_000 + 1_000);
    const refused = await secondStep(late, code(key));
    expect(refused).toMatchObject({ status: 401, body: DEAD_TOKEN });
    expect(refused.setCookie).toBeUndefined();
    expect((await auditOf(member.user.id, 'auth.login.2fa')).at(-1)).toMatchObject({
      outcome: 'failure',
      details: expect.objectContaining({ reason: 'token_expired' }),
    });
  });

  it('kills a partial token after 5 wrong codes, even for a right code after', async () => {
    const member = await t.createUser(orgId, 'member');
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
    const member = await t.createUser(orgId, 'member');
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
    const member = await t.createUser(orgId, 'member');
    const { key } = await enroll(member);
    const partial = await partialToken(member.user.email);
    expect((await owner.patch(`/api/v1/users/${member.user.id}`, { active: false })).status).toBe(200);
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

  it('leaves API keys alone: a key of a 2FA user works without a code, but cannot manage 2FA', async () => {
    const member = await t.createUser(orgId, 'member');
    const key = await t.keyClient(member, ['admin']);
    const { key: seed } = await enroll(member);
    const me = await key.get(`${AUTH}/me`);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: member.user.id, two_factor_enabled: true });
    expect((await key.post('/api/v1/projects', { name: `Keyed ${member.user.id}` })).status).toBe(201);
    const disable = await key.post(`${AUTH}/2fa/disable`, { code: code(seed) });
    expect(disable.status).toBe(403);
    expect((await key.post(`${AUTH}/2fa/setup`)).status).toBe(403);
    expect((await member.get(`${AUTH}/me`)).body.two_factor_enabled).toBe(true);
  });

  it('disables only with a valid, unspent code, and erases the seed and the recovery codes', async () => {
    const member = await t.createUser(orgId, 'member');
    expect(await member.post(`${AUTH}/2fa/disable`, { code: '123456' })).toMatchObject({
      status: 409,
      body: { detail: 'Two-factor authentication is not enabled' },
    });
    const { key } = await enroll(member);
    const step = stepNow();
    const [wrong = ''] = wrongCodes(key);
    for (const refused of [wrong, 'aaaa-bbbb-cccc-dddd']) {
      const response = await member.post(`${AUTH}/2fa/disable`, { code: refused });
      expect(response.status, refused).toBe(422);
      expect(response.body.detail[0]).toMatchObject({
        loc: ['body', 'code'],
        msg: 'Invalid two-factor code',
      });
    }
    // A code spent on a login cannot disable either.
    expect((await secondStep(await partialToken(member.user.email), code(key, step))).status).toBe(200);
    expect((await member.post(`${AUTH}/2fa/disable`, { code: code(key, step) })).status).toBe(422);
    expect((await member.get(`${AUTH}/me`)).body.two_factor_enabled).toBe(true);

    const pending = await partialToken(member.user.email);
    expect((await member.post(`${AUTH}/2fa/disable`, { code: code(key, step + 1) })).status).toBe(204);
    expect((await member.get(`${AUTH}/me`)).body.two_factor_enabled).toBe(false);
    const row = await t.store.db
      .selectFrom('users')
      .select(['totp_secret', 'totp_last_step'])
      .where('id', '=', member.user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ totp_secret: null, totp_last_step: null });
    const codes = await t.store.db
      .selectFrom('recovery_codes')
      .select('id')
      .where('user_id', '=', member.user.id)
      .execute();
    expect(codes).toEqual([]);
    // A login started before is dead; a new one needs no second step.
    expect(await secondStep(pending, code(key, step + 2))).toMatchObject({ status: 401, body: DEAD_TOKEN });
    const login = await post(`${AUTH}/login`, { email: member.user.email, password: TEST_PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body.user.two_factor_enabled).toBe(false);
    expect(Object.keys(login.cookies).sort()).toEqual(['csrf_token', 'session']);
  });

  it('disables with a recovery code too', async () => {
    const member = await t.createUser(orgId, 'member');
    const { recovery } = await enroll(member);
    expect((await member.post(`${AUTH}/2fa/disable`, { code: recovery[3] })).status).toBe(204);
    expect((await member.get(`${AUTH}/me`)).body.two_factor_enabled).toBe(false);
    const entries = await auditOf(member.user.id, 'auth.2fa.disable');
    expect(entries.at(-1)).toMatchObject({ outcome: 'success', details: { factor: 'recovery_code' } });
  });

  it('erases the seed and the recovery codes when a deleted user is purged', async () => {
    const member = await t.createUser(orgId, 'member');
    await enroll(member);
    expect((await owner.delete(`/api/v1/users/${member.user.id}`)).status).toBe(204);
    expect((await owner.post(`/api/v1/admin/users/${member.user.id}/purge`)).status).toBe(200);
    const row = await t.store.db
      .selectFrom('users')
      .select(['two_factor_enabled', 'totp_secret', 'totp_pending_secret', 'totp_last_step'])
      .where('id', '=', member.user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      two_factor_enabled: false,
      totp_secret: null,
      totp_pending_secret: null,
      totp_last_step: null,
    });
    const codes = await t.store.db
      .selectFrom('recovery_codes')
      .select('id')
      .where('user_id', '=', member.user.id)
      .execute();
    expect(codes).toEqual([]);
  });

  it('audits setup, enable, disable and 2FA logins, without any secret in audit details or logs', async () => {
    const member = await t.createUser(orgId, 'member');
    const { secret, key, recovery } = await enroll(member);
    const partial = await partialToken(member.user.email);
    const [wrong = ''] = wrongCodes(key);
    expect((await secondStep(partial, wrong)).status).toBe(401);
    const loginCode = code(key);
    expect((await secondStep(partial, loginCode)).status).toBe(200);
    toFreshStep();
    const disableCode = code(key);
    expect((await member.post(`${AUTH}/2fa/disable`, { code: disableCode })).status).toBe(204);

    const mine = (await owner.get('/api/v1/audit?page_size=200')).body.items.filter(
      (e: { target_id: string }) => e.target_id === member.user.id,
    );
    const actions = mine.map((e: { action: string; outcome: string }) => `${e.action}:${e.outcome}`);
    for (const expected of [
      'auth.2fa.setup:success',
      'auth.2fa.enable:success',
      'auth.login.2fa_challenge:success',
      'auth.login.2fa:failure',
      'auth.login:success',
      'auth.2fa.disable:success',
    ]) {
      expect(actions).toContain(expected);
    }
    const everything = JSON.stringify(mine) + t.logs.join('\n');
    for (const leaked of [secret, key.toString('hex'), partial, loginCode, disableCode, ...recovery]) {
      expect(everything).not.toContain(leaked);
    }
  });

  it('describes both login answers and the 2FA routes in OpenAPI', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    // Named schemas are components: follow the references.
    const resolve = (schema: { $ref?: string }) =>
      schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
    const login = resolve(
      doc.paths['/api/v1/auth/login'].post.responses['200'].content['application/json'].schema,
    );
    const answers = login.anyOf.map(resolve);
    expect(answers.map((s: { required: string[] }) => [...s.required].sort())).toEqual([
      ['user'],
      ['needs_2fa', 'partial_token'],
    ]);
    expect(answers[1].properties.needs_2fa).toMatchObject({ type: 'boolean', enum: [true] });
    for (const path of ['/auth/login/2fa', '/auth/2fa/setup', '/auth/2fa/enable', '/auth/2fa/disable']) {
      expect(doc.paths[`/api/v1${path}`]?.post, path).toBeDefined();
    }
    expect(doc.paths['/api/v1/auth/login/2fa'].post.security).toEqual([]);
    expect(Object.keys(doc.paths['/api/v1/auth/2fa/disable'].post.responses)).toEqual(
      expect.arrayContaining(['204', '401', '403', '409', '422']),
    );
  });

  it('runs the whole 2FA login over real HTTP with cookies', async () => {
    const member = await t.createUser(orgId, 'member');
    const { key } = await enroll(member);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
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

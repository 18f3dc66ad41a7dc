// Two-factor authentication (TOTP, RFC 6238): setting it up and enabling it, the seed sealed and the
// recovery codes hashed, API keys left alone, disabling it, purging, the audit trail and the OpenAPI
// description; checked with a TOTP implementation of this test's own, against the RFC's vectors.
// Signing in with the second step: two-factor.login.test.ts.
import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../../../test/support/app.ts';
import { AUTH, base32Decode, totpAtSeconds, twoFactorSuite } from '../../../test/support/two-factor.ts';

const INVALID_CODE = { detail: 'Invalid two-factor code' };
const DEAD_TOKEN = { detail: 'Partial token expired, used up or invalid; sign in again' };

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
  const suite = twoFactorSuite('Twofa');
  const { post, stepNow, code, wrongCodes, toFreshStep, enroll, partialToken, secondStep, auditOf } = suite;

  it('sets up a pending seed: base32 secret and an otpauth URL, stored sealed, 2FA still off', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
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

    const row = await suite.t.store.db
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
    const member = await suite.t.createUser(suite.orgId, 'member');
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
    expect((await suite.owner.get(`/api/v1/users/${member.user.id}`)).body.two_factor_enabled).toBe(true);
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
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { secret, key, recovery } = await enroll(member);
    const row = await suite.t.store.db
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

    const stored = await suite.t.store.db
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

  it('leaves API keys alone: a key of a 2FA user works without a code, but cannot manage 2FA', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const key = await suite.t.keyClient(member, ['admin']);
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
    const member = await suite.t.createUser(suite.orgId, 'member');
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
    const row = await suite.t.store.db
      .selectFrom('users')
      .select(['totp_secret', 'totp_last_step'])
      .where('id', '=', member.user.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ totp_secret: null, totp_last_step: null });
    const codes = await suite.t.store.db
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
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { recovery } = await enroll(member);
    expect((await member.post(`${AUTH}/2fa/disable`, { code: recovery[3] })).status).toBe(204);
    expect((await member.get(`${AUTH}/me`)).body.two_factor_enabled).toBe(false);
    const entries = await auditOf(member.user.id, 'auth.2fa.disable');
    expect(entries.at(-1)).toMatchObject({ outcome: 'success', details: { factor: 'recovery_code' } });
  });

  it('erases the seed and the recovery codes when a deleted user is purged', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    await enroll(member);
    expect((await suite.owner.delete(`/api/v1/users/${member.user.id}`)).status).toBe(204);
    expect((await suite.owner.post(`/api/v1/admin/users/${member.user.id}/purge`)).status).toBe(200);
    const row = await suite.t.store.db
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
    const codes = await suite.t.store.db
      .selectFrom('recovery_codes')
      .select('id')
      .where('user_id', '=', member.user.id)
      .execute();
    expect(codes).toEqual([]);
  });

  it('audits setup, enable, disable and 2FA logins, without any secret in audit details or logs', async () => {
    const member = await suite.t.createUser(suite.orgId, 'member');
    const { secret, key, recovery } = await enroll(member);
    const partial = await partialToken(member.user.email);
    const [wrong = ''] = wrongCodes(key);
    expect((await secondStep(partial, wrong)).status).toBe(401);
    const loginCode = code(key);
    expect((await secondStep(partial, loginCode)).status).toBe(200);
    toFreshStep();
    const disableCode = code(key);
    expect((await member.post(`${AUTH}/2fa/disable`, { code: disableCode })).status).toBe(204);

    const mine = (await suite.owner.get('/api/v1/audit?page_size=200')).body.items.filter(
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
    const everything = JSON.stringify(mine) + suite.t.logs.join('\n');
    for (const leaked of [secret, key.toString('hex'), partial, loginCode, disableCode, ...recovery]) {
      expect(everything).not.toContain(leaked);
    }
  });

  it('describes both login answers and the 2FA routes in OpenAPI', async () => {
    const doc = JSON.parse((await suite.t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
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
});

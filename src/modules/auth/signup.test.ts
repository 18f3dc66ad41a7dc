import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, uniqueEmail } from '../../../test/support/app.ts';

const SIGNUP = '/api/v1/auth/signup';
const PASSWORD = 'a long enough password';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

function signupWith(t: TestApp, payload: object, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: SIGNUP, payload, remoteAddress });
}

async function countRows(t: TestApp, table: 'users' | 'organizations'): Promise<number> {
  const row = await t.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('signup (open)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('creates an organization on the Starter plan with the new user as owner, and signs in', async () => {
    const email = uniqueEmail('signup');
    const response = await signupWith(
      t,
      {
        email: email.toUpperCase(),
        password: PASSWORD,
        name: ' Ada Lovelace ',
        organization_name: 'Analytical',
      },
      '10.20.30.40',
    );
    expect(response.statusCode).toBe(201);
    const { user } = JSON.parse(response.body);
    expect(user).toEqual({
      id: expect.any(String),
      email,
      name: 'Ada Lovelace',
      org_role: 'owner',
      active: true,
      scim_external_id: null,
      two_factor_enabled: false,
      created_at: expect.stringMatching(TIMESTAMP),
      deleted_at: null,
    });

    const cookies = Object.fromEntries(response.cookies.map((c) => [c.name, c.value]));
    expect(Object.keys(cookies).sort()).toEqual(['csrf_token', 'session']);
    const session = (response.headers['set-cookie'] as string[]).find((c) => c.startsWith('session='));
    expect(session?.toLowerCase()).toContain('httponly');

    const me = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', cookies });
    expect(me.statusCode).toBe(200);
    expect(JSON.parse(me.body).id).toBe(user.id);
    const org = await t.app.inject({ method: 'GET', url: '/api/v1/orgs/current', cookies });
    expect(JSON.parse(org.body)).toMatchObject({ name: 'Analytical', plan: 'starter' });

    // The session is a full one: a mutating call with its CSRF token works.
    const project = await t.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      cookies,
      headers: { 'x-csrf-token': cookies.csrf_token ?? '' },
      payload: { name: 'First' },
    });
    expect(project.statusCode).toBe(201);

    // The password is stored hashed, and signs in.
    const row = await t.store.db
      .selectFrom('users')
      .select(['password_hash', 'org_id'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect((await t.login(email, PASSWORD)).user.id).toBe(user.id);

    // Audited as the signup it was, from the client's address.
    const audit = await t.app.inject({ method: 'GET', url: '/api/v1/audit?page_size=200', cookies });
    const entries = JSON.parse(audit.body).items as {
      action: string;
      ip: string;
      target_id: string;
      details: Record<string, unknown>;
    }[];
    expect(entries.find((e) => e.action === 'org.create')).toMatchObject({
      ip: '10.20.30.40',
      target_id: row.org_id,
      details: { owner: user.id, source: 'signup' },
    });
    // The oldest login: the one of the signup (the password login above came later).
    expect(entries.filter((e) => e.action === 'auth.login').at(-1)).toMatchObject({
      ip: '10.20.30.40',
      target_id: user.id,
      details: expect.objectContaining({ method: 'password' }),
    });
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
  });

  it('answers 409 for an e-mail already in use, whatever its case, and creates nothing', async () => {
    const email = uniqueEmail('dup');
    const first = await signupWith(t, { email, password: PASSWORD, name: 'First', organization_name: 'One' });
    expect(first.statusCode).toBe(201);
    const [users, orgs] = [await countRows(t, 'users'), await countRows(t, 'organizations')];

    const again = await signupWith(t, {
      email: email.toUpperCase(),
      password: PASSWORD,
      name: 'Second',
      organization_name: 'Two',
    });
    expect(again.statusCode).toBe(409);
    expect(JSON.parse(again.body)).toEqual({ detail: 'A user with this email already exists' });
    expect(again.headers['set-cookie']).toBeUndefined();
    expect([await countRows(t, 'users'), await countRows(t, 'organizations')]).toEqual([users, orgs]);
  });

  it('validates the body with 422 at each field', async () => {
    const valid = { email: uniqueEmail('v'), password: PASSWORD, name: 'Val', organization_name: 'Valid' };
    const cases: [object, (string | number)[], string][] = [
      [{ ...valid, organization_name: undefined }, ['body', 'organization_name'], 'missing'],
      [{ ...valid, name: undefined }, ['body', 'name'], 'missing'],
      [{ ...valid, email: 'not-an-email' }, ['body', 'email'], ''],
      [{ ...valid, password: 'short' }, ['body', 'password'], ''],
      [{ ...valid, organization_name: '   ' }, ['body', 'organization_name'], ''],
      [{ ...valid, plan: 'enterprise' }, ['body', 'plan'], 'extra_forbidden'],
    ];
    const before = await countRows(t, 'users');
    for (const [payload, loc, type] of cases) {
      const response = await signupWith(t, JSON.parse(JSON.stringify(payload)));
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      const items = JSON.parse(response.body).detail as { loc: (string | number)[]; type: string }[];
      expect(items, JSON.stringify(payload)).toContainEqual(
        expect.objectContaining({ loc, ...(type && { type }) }),
      );
    }
    expect(await countRows(t, 'users')).toBe(before);
  });
});

describe('signup (SIGNUP=closed)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ signupOpen: false });
  });
  afterAll(() => t.close());

  it('answers 403 and creates nothing, while existing users still sign in', async () => {
    const before = await countRows(t, 'users');
    const response = await signupWith(t, {
      email: uniqueEmail('closed'),
      password: PASSWORD,
      name: 'Nobody',
      organization_name: 'Nope',
    });
    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ detail: 'Signup is closed on this server' });
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(await countRows(t, 'users')).toBe(before);

    const { owner } = await t.createOrg('Invited');
    expect((await owner.get('/api/v1/auth/me')).status).toBe(200);
  });
});

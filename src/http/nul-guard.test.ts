// The NUL character in any input answers 422 naming where it is, never a 500 from the store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../test/support/app.ts';

describe('NUL characters in input', () => {
  let t: TestApp;
  let owner: Client;

  beforeAll(async () => {
    t = await createTestApp();
    ({ owner } = await t.createOrg('Nul'));
  });
  afterAll(() => t.close());

  const item = (loc: (string | number)[]) => ({
    detail: [{ loc, msg: 'Text must not contain the NUL character (U+0000)', type: 'string_nul' }],
  });

  it('refuses one in a body field, nested or as a key, with the path to it', async () => {
    const named = await owner.post('/api/v1/projects', { name: 'a\u0000b' });
    expect(named.status).toBe(422);
    expect(named.body).toEqual(item(['body', 'name']));
    const signup = await t.anonymous.post('/api/v1/auth/signup', {
      email: 'nul@example.com',
      password: 'long enough password',
      name: 'Nul',
      organization_name: '\u0000',
    });
    expect(signup.status).toBe(422);
    expect(signup.body).toEqual(item(['body', 'organization_name']));
    const key = await owner.post('/api/v1/projects', { name: 'ok', 'x\u0000': 1 });
    expect(key.body).toEqual(item(['body', 'x\u0000']));
  });

  it('refuses one in the query string and in the path', async () => {
    const query = await owner.get('/api/v1/projects?page_size=%00');
    expect(query.status).toBe(422);
    expect(query.body).toEqual(item(['query', 'page_size']));
    const path = await owner.get('/api/v1/projects/%00');
    expect(path.status).toBe(422);
    expect(path.body.detail[0].loc[0]).toBe('path');
  });

  it('lets everything else through as before', async () => {
    expect((await owner.post('/api/v1/projects', { name: 'fine \u0001 name' })).status).toBe(201);
  });
});

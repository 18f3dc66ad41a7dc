// Found from outside (names): `GET /scim/v2/Users?filter=constructor eq "x"` answered 500: the
// filter's attribute was looked up in a plain object, where `constructor`, `__proto__` and `toString`
// name what every object inherits. Wherever caller text names a field, only own entries count: a
// filter on one of these names is 400 `invalidFilter`, a PATCH path naming one is 400 `invalidPath`,
// and SCIM's numbers are bounded like the API's (a 20-digit `startIndex` was a 500 too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';

const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('caller text never reaches what objects inherit', () => {
  let t: TestApp;
  let token: string;
  let userId: string;

  beforeAll(async () => {
    t = await createTestApp();
    const { owner } = await t.createOrg('Prototype names');
    token = (await owner.post('/api/v1/admin/scim/token')).body.token;
    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'proto@example.com',
      name: { givenName: 'Pro', familyName: 'To' },
    });
    expect(created.status).toBe(201);
    userId = created.body.id;
  });
  afterAll(() => t?.close());

  async function scim(method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) {
    const response = await t.app.inject({
      method,
      url: `/scim/v2${url}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  }

  it('answers a filter on an inherited name 400 invalidFilter, on Users and Groups', async () => {
    for (const resource of ['Users', 'Groups'])
      for (const name of INHERITED)
        for (const filter of [`${name} eq "x"`, `${name} pr`, `userName eq "a" or ${name} sw "b"`]) {
          const answer = await scim('GET', `/${resource}?filter=${encodeURIComponent(filter)}`);
          expect(answer.status, `${resource}: ${filter}`).toBe(400);
          expect(answer.body).toMatchObject({
            schemas: [ERROR_SCHEMA],
            status: '400',
            scimType: 'invalidFilter',
          });
        }
    // What is supported still works.
    const found = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "PROTO@example.com"')}`);
    expect(found.status).toBe(200);
    expect(found.body.totalResults).toBe(1);
  });

  it('answers a PATCH path naming an inherited name 400 invalidPath, and changes nothing', async () => {
    for (const name of INHERITED) {
      for (const operation of [
        { op: 'replace', path: name, value: 'x' },
        { op: 'replace', value: { [name]: 'x' } },
      ]) {
        const answer = await scim('PATCH', `/Users/${userId}`, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [operation],
        });
        expect(answer.status, JSON.stringify(operation)).toBe(400);
        // A `__proto__` key in a body is refused by the JSON parser itself, before any lookup.
        const refusal = name === '__proto__' && !('path' in operation) ? 'invalidSyntax' : 'invalidPath';
        expect(answer.body).toMatchObject({ schemas: [ERROR_SCHEMA], scimType: refusal });
      }
    }
    expect((await scim('GET', `/Users/${userId}`)).body.userName).toBe('proto@example.com');
  });

  it('answers a startIndex or count too large to be an exact integer 400, never 500', async () => {
    for (const query of [
      'startIndex=99999999999999999999',
      'count=99999999999999999999',
      'startIndex=2147483648',
    ]) {
      const answer = await scim('GET', `/Users?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body).toMatchObject({ schemas: [ERROR_SCHEMA], scimType: 'invalidValue' });
    }
    const past = await scim('GET', '/Users?startIndex=2147483647');
    expect(past.status).toBe(200);
    expect(past.body.Resources ?? []).toEqual([]);
  });
});

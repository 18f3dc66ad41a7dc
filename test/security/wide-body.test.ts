// Wide bodies: 50,000 undeclared keys in a 0.5 MB body made a
// 422 of 50,000 items, a 4.5 MB answer. A 422 lists at most its first 100 problems.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_VALIDATION_ITEMS } from '../../src/http/validation.ts';
import { type Client, createTestApp, type TestApp } from '../support/app.ts';

describe('wide bodies', () => {
  let t: TestApp;
  let owner: Client;

  beforeAll(async () => {
    t = await createTestApp();
    ({ owner } = await t.createOrg('Wide bodies'));
  });
  afterAll(() => t?.close());

  it('answers 50,000 undeclared keys with the first 100 problems, not 50,000', async () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `"f${i}":0`).join(',');
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { 'content-type': 'application/json', cookie: '' },
      payload: `{"name":"wide",${keys}}`,
    });
    // Anonymous: refused before the body matters. Signed in: validated.
    expect(answer.statusCode).toBe(401);
    const validated = await owner.request('POST', '/api/v1/projects', `{"name":"wide",${keys}}`, {
      'content-type': 'application/json',
    });
    expect(validated.status).toBe(422);
    expect(MAX_VALIDATION_ITEMS).toBe(100);
    expect(validated.body.detail).toHaveLength(100);
    expect(validated.body.detail[0]).toMatchObject({ loc: ['body', 'f0'] });
    expect(JSON.stringify(validated.body).length).toBeLessThan(20_000);
  });
});

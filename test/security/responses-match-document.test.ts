// The response check every test client runs (test/support/contract-check.ts) can fail: shown here on
// answers the service's own document does not declare, and on real answers it does.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type ContractCheck, contractCheckOf } from '../support/contract-check.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

describe('every response is checked against /openapi.json', () => {
  let t: TestApp;
  let check: ContractCheck;
  let projectId: string;

  beforeAll(async () => {
    t = await createTestApp();
    check = contractCheckOf((await t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    const { owner } = await t.createOrg();
    projectId = (await owner.post('/api/v1/projects', { name: 'Checked' })).body.id;
  });
  afterAll(() => t?.close());

  const json = 'application/json; charset=utf-8';

  it('takes a body the document declares', () => {
    const problem = check({
      method: 'GET',
      url: `/api/v1/projects/${projectId}`,
      status: 404,
      contentType: json,
      text: JSON.stringify({ detail: 'Project not found' }),
    });
    expect(problem).toBeUndefined();
  });

  it('refuses a status the operation does not declare', () => {
    const problem = check({
      method: 'GET',
      url: '/api/v1/projects',
      status: 418,
      contentType: json,
      text: JSON.stringify({ detail: 'teapot' }),
    });
    expect(problem).toMatch(/declares no 418/);
  });

  it('refuses a body that is not the declared schema', () => {
    const problem = check({
      method: 'GET',
      url: `/api/v1/projects/${projectId}`,
      status: 404,
      contentType: json,
      text: JSON.stringify({ message: 'not found' }),
    });
    expect(problem).toMatch(/does not match the document/);
  });

  it('refuses a media type the response does not list', () => {
    const problem = check({
      method: 'GET',
      url: '/scim/v2/Users',
      status: 401,
      contentType: json,
      text: JSON.stringify({ detail: 'no' }),
    });
    expect(problem).toMatch(/content type "application\/json"/);
  });

  it('judges SCIM answers in their own media type and envelope', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/scim/v2/Users' });
    expect(response.statusCode).toBe(401);
    const problem = check({
      method: 'GET',
      url: '/scim/v2/Users',
      status: response.statusCode,
      contentType: response.headers['content-type'] as string,
      text: response.body,
    });
    expect(problem).toBeUndefined();
  });

  it('leaves paths the document does not describe alone', () => {
    expect(
      check({ method: 'GET', url: '/login', status: 200, contentType: 'text/html', text: '<html>' }),
    ).toBe(undefined);
  });

  it('describes the 17 SCIM operations: their tag, token, media type, 401 and 429', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations = Object.entries(doc.paths as Record<string, Record<string, ScimOperation>>)
      .filter(([path]) => path.startsWith('/scim/v2/'))
      .flatMap(([, item]) => Object.values(item));
    expect(operations).toHaveLength(17);
    expect(doc.components.securitySchemes.scimBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const operation of operations) {
      expect(operation.tags).toEqual(['SCIM']);
      expect(operation.security).toEqual([{ scimBearer: [] }]);
      for (const status of ['401', '429'])
        expect(Object.keys(operation.responses[status]?.content ?? {})).toEqual(['application/scim+json']);
      if (operation.requestBody)
        expect(Object.keys(operation.requestBody.content)).toContain('application/scim+json');
    }
  });

  it('takes SCIM requests as identity providers send them: op in any case, booleans as text', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ajv = addFormats(new Ajv2020({ strict: false }));
    ajv.addSchema({ $id: 'openapi.json', components: doc.components });
    const valid = (name: string, body: unknown) =>
      ajv.validate({ $ref: `openapi.json#/components/schemas/${name}` }, body);
    const entraPatch = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [
        { op: 'Replace', path: 'active', value: 'False' },
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'ada@example.com' },
      ],
    };
    expect(valid('ScimPatchRequest', entraPatch)).toBe(true);
    expect(valid('ScimPatchRequest', { Operations: [{ op: 'merge', path: 'active', value: true }] })).toBe(
      false,
    );
    expect(valid('ScimUserRequest', { userName: 'ada@example.com', active: 'True', title: 'Engineer' })).toBe(
      true,
    );
    expect(valid('ScimUserRequest', { userName: 'ada@example.com', active: 'yes' })).toBe(false);
  });
});

interface ScimOperation {
  tags: string[];
  security: unknown;
  responses: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, unknown> };
}

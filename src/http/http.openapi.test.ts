// The OpenAPI description at /openapi.json: every /api/v1 operation described completely (ids,
// bodies, responses, parameters, every $ref resolved), the bodies clients read named, and the
// interactive docs at /docs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/app.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Mutating operations that take no body; every other POST, PUT and PATCH must declare one. */
const BODYLESS = new Set([
  'logout',
  'purgeUser',
  'setupTwoFactor',
  'testConnection',
  'takeSnapshot',
  'checkConnectionDrift',
  'revokeAccessRequest',
  'cancelRun',
  'dryRunPatch',
  'createScimToken',
  'runAnonymizeConfig',
  'previewSeedScenario',
  'runSeedScenario',
  'rotateWebhookSecret',
  'redeliverWebhookDelivery',
  'testWebhook',
  'testAuditSink',
]);

/** Browser navigations that answer only with a redirect (OAuth): a 3xx with Location instead of a 2xx. */
const REDIRECTS = new Set(['oauthAuthorize', 'oauthCallback', 'samlLogin', 'samlAcs']);

interface Content {
  content?: Record<string, { schema?: object }>;
  headers?: Record<string, object>;
}

interface Operation {
  operationId?: string;
  responses?: Record<string, Content>;
  requestBody?: Content & { required?: boolean };
  parameters?: { in: string; name: string; required?: boolean; schema?: object }[];
}

/** The component a `#/components/schemas/…` reference names. */
function component(
  doc: { components: { schemas: Record<string, { required?: string[]; oneOf?: unknown }> } },
  ref: string,
) {
  const found = doc.components.schemas[ref.replace('#/components/schemas/', '')];
  if (!found) throw new Error(`no component for ${ref}`);
  return found;
}

describe('http: the OpenAPI description and the docs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const inject = (options: { method: 'GET'; url: string }) => t.app.inject(options);

  it('describes every /api/v1 operation completely in OpenAPI 3.1', async () => {
    const response = await inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: 'dbops' });

    const operationIds = new Set<string>();
    let operations = 0;
    const problems: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      if (!path.startsWith('/api/v1/')) continue;
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        operations++;
        const where = `${method.toUpperCase()} ${path}`;
        const id = op.operationId ?? '';
        if (id === '') problems.push(`${where}: no operationId`);
        else if (operationIds.has(id)) problems.push(`${where}: duplicate operationId ${id}`);
        operationIds.add(id);

        const success = Object.keys(op.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
        if (REDIRECTS.has(id)) {
          const redirects = Object.entries(op.responses ?? {}).filter(([status]) => /^3\d\d$/.test(status));
          if (redirects.length === 0 || redirects.some(([, response]) => !response.headers?.location))
            problems.push(`${where}: no 3xx response with a Location header`);
        } else if (success.length === 0) problems.push(`${where}: no 2xx response`);
        for (const status of success.filter((s) => s !== '204')) {
          // JSON, or the one media type of a route that answers otherwise (SAML metadata is XML).
          const content = op.responses?.[status]?.content ?? {};
          const schema = (content['application/json']?.schema ?? Object.values(content)[0]?.schema) as
            | { $ref?: string }
            | undefined;
          if (!schema || Object.keys(schema).length === 0)
            problems.push(`${where}: ${status} without a schema`);
        }
        if (!op.responses?.['422']) problems.push(`${where}: no 422 response`);
        // A body past 1 MiB or of another media type is refused before the handler runs (docs/contract.md §1).
        if (op.requestBody !== undefined)
          for (const status of ['413', '415'])
            if (!op.responses?.[status]) problems.push(`${where}: takes a body but declares no ${status}`);

        if (['post', 'put', 'patch'].includes(method) && !BODYLESS.has(id)) {
          // JSON, or the one media type of a route that takes another (the SAML ACS takes a form).
          const content = op.requestBody?.content ?? {};
          const schema = (content['application/json']?.schema ?? Object.values(content)[0]?.schema) as
            | { $ref?: string }
            | undefined;
          if (!schema || Object.keys(schema).length === 0) problems.push(`${where}: no requestBody schema`);
          else if (!schema.$ref) problems.push(`${where}: requestBody is not a named component`);
          else {
            // Optional means optional: a body is required exactly when one of its fields is (or
            // when it is one of alternatives, each requiring its own fields).
            const body = component(doc, schema.$ref);
            const required = (body.required ?? []).length > 0 || body.oneOf !== undefined;
            if (op.requestBody?.required !== required)
              problems.push(
                `${where}: requestBody required is ${op.requestBody?.required}, fields say ${required}`,
              );
          }
        }
        for (const status of success.filter((s) => s !== '204')) {
          const schema = op.responses?.[status]?.content?.['application/json']?.schema as { $ref?: string };
          if (schema && !schema.$ref) problems.push(`${where}: ${status} is not a named component`);
        }
        for (const param of op.parameters ?? []) {
          const schema = param.schema as { default?: unknown } | undefined;
          if (param.in === 'query' && param.required && schema?.default !== undefined)
            problems.push(`${where}: query parameter ${param.name} has a default but is required`);
        }
        for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
          const param = (op.parameters ?? []).find((p) => p.in === 'path' && p.name === name);
          if (!param?.required || !param.schema)
            problems.push(`${where}: path parameter ${name} not declared`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(operations).toBeGreaterThanOrEqual(30);
    for (const id of ['login', 'createUser', 'purgeUser', 'createProject', 'createApiKey', 'listAudit']) {
      expect(operationIds).toContain(id);
    }

    // A schema that takes null and lists its values lists null too (else `null` fails it).
    const nullsRefused: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as { type?: unknown; enum?: unknown[] };
      if (
        Array.isArray(schema.type) &&
        schema.type.includes('null') &&
        schema.enum &&
        !schema.enum.includes(null)
      )
        nullsRefused.push(at);
      for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
    };
    walk(doc, '#');
    expect(nullsRefused).toEqual([]);

    // Every $ref points at a component (schema, header, response) the document has.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const [, kind, name] = /#\/components\/(schemas|headers|responses)\/(.+)"$/.exec(ref) ?? [];
      expect(name, ref).toBeDefined();
      expect(doc.components[kind!]?.[name!], ref).toBeDefined();
    }
  });

  it('names the bodies clients read: Project, Run with its result per kind, the paged lists', async () => {
    const doc = (await inject({ method: 'GET', url: '/openapi.json' })).json();
    const names = Object.keys(doc.components.schemas);
    for (const name of ['Project', 'Connection', 'Run', 'Patch', 'Migration', 'ProjectPage', 'RunPage'])
      expect(names).toContain(name);
    for (const name of [
      'PatchExecuteResult',
      'PatchRollbackResult',
      'MigrationRunResult',
      'DriftCheckResult',
    ])
      expect(JSON.stringify(doc.components.schemas.Run.properties.result)).toContain(
        `"#/components/schemas/${name}"`,
      );
    const list = doc.paths['/api/v1/projects'].get;
    expect(list.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ProjectPage',
    });
    expect(list.parameters.filter((p: { required?: boolean }) => p.required)).toEqual([]);
    const snapshot = doc.paths['/api/v1/connections/{cid}/snapshots'].post;
    expect(snapshot.parameters.find((p: { name: string }) => p.name === 'baseline').required).toBeFalsy();
    for (const path of ['/healthz', '/readyz']) {
      expect(doc.paths[path]?.get?.responses?.['200'], path).toBeDefined();
      expect(doc.paths[path].get.security).toEqual([]);
    }
    expect(doc.paths['/readyz'].get.responses['503']).toBeDefined();
    // Stripe sends a JSON object (the handler reads its exact text only to check the signature).
    const stripe = doc.paths['/api/v1/billing/webhooks/stripe'].post.requestBody;
    expect(stripe.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/StripeEventPayload',
    });
    expect(doc.components.schemas.StripeEventPayload).toMatchObject({
      type: 'object',
      required: ['id', 'type', 'data'],
    });
  });

  it('declares 502 on every operation whose handler reads or writes the target database', async () => {
    const doc = (await inject({ method: 'GET', url: '/openapi.json' })).json();
    const reachesTarget = [
      'createPatch',
      'editPatch',
      'dryRunPatch',
      'executePatch',
      'rollbackPatch',
      'compareMigration',
      'applyMigration',
      'getConnectionSchema',
      'takeSnapshot',
      'getConnectionDrift',
      'checkConnectionDrift',
      'createSeedScenario',
      'editSeedScenario',
      'previewSeedScenario',
      'runSeedScenario',
      'createAnonymizeConfig',
      'editAnonymizeConfig',
      'scanAnonymizeConfig',
      'previewAnonymizeConfig',
      'runAnonymizeConfig',
      'runBridge',
    ];
    const byId = new Map<string, Operation>();
    for (const item of Object.values(doc.paths as Record<string, Record<string, Operation>>))
      for (const op of Object.values(item)) if (op.operationId) byId.set(op.operationId, op);
    const missing = reachesTarget.filter((id) => !byId.get(id)?.responses?.['502']);
    expect(missing).toEqual([]);
  });

  it('serves the interactive docs at /docs', async () => {
    let url = '/docs';
    let response = await inject({ method: 'GET', url });
    for (let hops = 0; hops < 3 && response.statusCode >= 300 && response.statusCode < 400; hops++) {
      url = new URL(String(response.headers.location), `http://localhost${url}`).pathname;
      response = await inject({ method: 'GET', url });
    }
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toMatch(/<html/i);
    expect(response.body).toMatch(/swagger/i);
    expect(response.headers['x-request-id']).toMatch(UUID);
  });
});

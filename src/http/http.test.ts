// The HTTP layer of the whole app: the error model (404, 422 for malformed or missing bodies, 413,
// 415, 500 with the request id in the log), X-Request-Id, /healthz and /readyz, and the web app at /.
// The OpenAPI description and /docs: http.openapi.test.ts.
import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, testConfig } from '../../test/support/app.ts';
import { openTemplateStore } from '../../test/support/store-template.ts';
import { buildApp } from '../app.ts';
import { compose, LOG_REDACT } from '../compose.ts';
import { createPasswordHasher } from '../security/passwords.ts';
import type { Store } from '../store/db.ts';
import type { App } from './types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const JSON_INVALID = { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] };
const BODY_MISSING = { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] };
interface LogLine {
  level: number;
  reqId?: string;
  err?: { message?: string; stack?: string };
}

/** An app built like the harness builds it, on `store`, with its log lines captured, not yet ready. */
async function buildOwnApp(store: Store): Promise<{ app: App; logs: string[] }> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const composition = await compose({
    config: testConfig({}),
    jobs: 'none',
    store,
    migrate: false,
    secretKey: Buffer.alloc(32, 7),
    passwords: await createPasswordHasher({ memoryKib: 64, iterations: 1 }),
    logger: pino({ level: 'info', redact: { paths: LOG_REDACT, censor: '[redacted]' } }, sink),
  });
  const app = await buildApp(composition);
  app.addHook('onClose', () => composition.close());
  return { app, logs };
}

describe('http: the error model, request ids and health', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const inject = (options: InjectOptions) => t.app.inject(options);

  it('answers an unknown route with 404 {"detail":"Not Found"}', async () => {
    for (const [method, url] of [
      // Outside /api the web application answers unknown reads; under /api/ nothing does.
      ['GET', '/api/nope'],
      ['DELETE', '/nope'],
      ['GET', '/api/v1/nope'],
      ['POST', '/api/v1/does/not/exist'],
      ['PUT', '/api/v1/users'],
    ] as const) {
      const response = await inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toEqual({ detail: 'Not Found' });
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-request-id']).toMatch(UUID);
    }
  });

  it('answers malformed JSON with 422 json_invalid at loc ["body"]', async () => {
    for (const payload of ['{"email": "a@example.com",', '{bad json}', 'not json at all', '[1, 2']) {
      const response = await inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode, payload).toBe(422);
      expect(response.json()).toEqual(JSON_INVALID);
    }
    // The same behind authentication.
    const { owner } = await t.createOrg('Json');
    const key = await t.keyClient(owner, ['write']);
    const response = await inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.secret}` },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual(JSON_INVALID);
  });

  it('answers a missing body with 422 missing at loc ["body"]', async () => {
    const none = await inject({ method: 'POST', url: '/api/v1/auth/login' });
    expect(none.statusCode).toBe(422);
    expect(none.json()).toEqual(BODY_MISSING);
    const empty = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(422);
    expect(empty.json()).toEqual(BODY_MISSING);
    // A body that is there but lacks fields names each field.
    const partial = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'a@example.com' },
    });
    expect(partial.statusCode).toBe(422);
    expect(partial.json()).toEqual({
      detail: [{ loc: ['body', 'password'], msg: 'Field required', type: 'missing' }],
    });
  });

  it('answers a body over 1 MiB with 413 {detail}', async () => {
    const payload = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024) });
    const response = await inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ detail: 'Request body is larger than 1 MiB' });
    expect(response.headers['x-request-id']).toMatch(UUID);
  });

  it('answers text/plain and other media types with 415 {detail}', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'content-type': type },
        payload: 'email=a@example.com&password=x',
      });
      expect(response.statusCode, type).toBe(415);
      expect(response.json()).toEqual({ detail: 'Unsupported media type: send application/json' });
      expect(response.headers['x-request-id']).toMatch(UUID);
    }
  });

  it('puts X-Request-Id on every response, echoing a sane one and replacing garbage', async () => {
    const responses = [
      await inject({ method: 'GET', url: '/healthz' }),
      await inject({ method: 'GET', url: '/api/nope' }),
      await inject({ method: 'GET', url: '/api/v1/users' }),
      await inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'x@example.com', password: 'y' },
      }),
      await inject({ method: 'POST', url: '/api/v1/auth/login', payload: {} }),
    ];
    expect(responses.map((r) => r.statusCode)).toEqual([200, 404, 401, 401, 422]);
    const ids = responses.map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);

    for (const sane of ['abc-123', 'trace.4f2a:0001_x', 'A'.repeat(128)]) {
      const response = await inject({ method: 'GET', url: '/api/nope', headers: { 'x-request-id': sane } });
      expect(response.headers['x-request-id']).toBe(sane);
    }
    for (const garbage of ['has spaces in it', '<script>', 'x'.repeat(129), '']) {
      const response = await inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': garbage } });
      expect(response.headers['x-request-id'], garbage).toMatch(UUID);
    }
  });

  it('answers 500 {"detail":"Internal Server Error"} and logs the error with the request id', async () => {
    const { app, logs } = await buildOwnApp(t.store);
    app.get('/boom', async () => {
      throw new Error('kaboom: connection to 10.1.2.3 refused, password=hunter2');
    });
    await app.ready();
    try {
      const response = await app.inject({
        method: 'GET',
        url: '/boom',
        headers: { 'x-request-id': 'req-boom-1' },
      });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ detail: 'Internal Server Error' });
      expect(response.headers['x-request-id']).toBe('req-boom-1');
      expect(response.body).not.toContain('kaboom');
      expect(response.body).not.toContain('hunter2');

      const lines = logs.map((line) => JSON.parse(line) as LogLine);
      const logged = lines.find((line) => line.err?.message?.includes('kaboom'));
      expect(logged).toBeDefined();
      expect(logged!.level).toBe(50);
      expect(logged!.reqId).toBe('req-boom-1');
      expect(logged!.err?.stack).toContain('http.test.ts');
    } finally {
      await app.close();
    }
  });

  it('answers /healthz and /readyz with 200', async () => {
    const health = await inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('answers /readyz with 503 while the store is not migrated', async () => {
    let store: Store | undefined;
    let app: App | undefined;
    try {
      store = await openTemplateStore('blank');
      ({ app } = await buildOwnApp(store));
      await app.ready();
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ detail: 'Store unreachable or not migrated' });
      expect(Number(ready.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app?.close();
      await store?.close();
    }
  });

  it('reads a missing or empty body as {} where nothing in it is required', async () => {
    const { owner } = await t.createOrg('Bodiless');
    const id = '00000000-0000-4000-8000-000000000000';
    // Past validation, the service looks the patch up: 404, not 422, with or without a body.
    for (const body of [undefined, {}]) {
      const response = await owner.post(`/api/v1/patches/${id}/execute`, body);
      expect(response.status, JSON.stringify(response.body)).toBe(404);
    }
    const empty = await owner.request('POST', `/api/v1/migrations/${id}/apply`, undefined, {
      'content-type': 'application/json',
    });
    expect(empty.status, JSON.stringify(empty.body)).toBe(404);
    // A body that is there is still validated.
    const wrong = await owner.post(`/api/v1/patches/${id}/execute`, { expected_rows: 'many' });
    expect(wrong.status).toBe(422);
  });

  it('answers GET / with the web application (src/web/serve-web-app.test.ts has the details)', async () => {
    const response = await inject({ method: 'GET', url: '/' });
    // 503 with how to build it when this checkout has no build of web/ yet.
    expect([200, 503]).toContain(response.statusCode);
    if (response.statusCode === 200) expect(response.headers['content-type']).toMatch(/^text\/html/);
    else expect(response.json().detail).toMatch(/not built/);
  });
});

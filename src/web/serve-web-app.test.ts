import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/app.ts';
import { buildApp } from '../app.ts';
import type { App } from '../http/types.ts';
import { IMMUTABLE, isServicePath, WEB_CSP, webCsp } from './serve-web-app.ts';

const INDEX =
  '<!doctype html><meta name="csp-nonce" content="__CSP_NONCE__"><title>dbops test build</title>' +
  '<script type="module" src="/assets/index-AbC123.js"></script>';
const nonceOf = (html: string) => /content="([^"]+)"/.exec(html)?.[1];

/** A build as Vite lays it out: index.html and hashed assets. */
function fakeBuild(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dbops-web-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), INDEX);
  fs.writeFileSync(path.join(root, 'assets', 'index-AbC123.js'), 'console.log("app");');
  fs.writeFileSync(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.writeFileSync(path.join(root, '.source-hash'), 'abc\n');
  return root;
}

describe('the web application at /', () => {
  let t: TestApp;
  let app: App;
  let root: string;

  beforeAll(async () => {
    t = await createTestApp();
    root = fakeBuild();
    app = await buildApp(t.composition, { webRoot: root });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('serves index.html at / with the CSP of its own origin and no caching', async () => {
    const response = await app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('<title>dbops test build</title>');
    const nonce = nonceOf(response.body)!;
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(response.headers['content-security-policy']).toBe(webCsp(nonce));
    expect(response.headers['cache-control']).toBe('no-cache');
    const csp = webCsp(nonce);
    for (const directive of ['default-src', 'script-src', 'style-src', 'connect-src', 'img-src']) {
      expect(csp).toContain(`${directive} 'self'`);
    }
    expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    // A new nonce for every page load.
    const again = await app.inject({ method: 'GET', url: '/' });
    expect(nonceOf(again.body)).not.toBe(nonce);
    expect(again.headers['content-security-policy']).toBe(webCsp(nonceOf(again.body)!));
  });

  it('answers bookmarked application paths with index.html (SPA fallback)', async () => {
    for (const url of [
      '/login/2fa',
      '/projects/8b0e0a52-1f0e-4e4b-9a8c-0a1b2c3d4e5f/migrations',
      '/runs?x=1',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toContain('<title>dbops test build</title>');
      expect(response.headers['content-security-policy']).toBe(webCsp(nonceOf(response.body)!));
    }
  });

  it('caches hashed assets for a year and other files not at all', async () => {
    const asset = await app.inject({ method: 'GET', url: '/assets/index-AbC123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe('console.log("app");');
    expect(asset.headers['cache-control']).toBe(IMMUTABLE);
    expect(asset.headers['content-security-policy']).toBe(WEB_CSP);
    expect(WEB_CSP).not.toContain('nonce');
    const icon = await app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('answers a missing asset with 404, not the application', async () => {
    const response = await app.inject({ method: 'GET', url: '/assets/index-gone.js' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: 'Not Found' });
  });

  it('does not serve the build stamp, nor index.html without its nonce', async () => {
    const response = await app.inject({ method: 'GET', url: '/.source-hash' });
    expect(response.body).not.toBe('abc\n');
    const index = await app.inject({ method: 'GET', url: '/index.html' });
    expect(index.body).not.toContain('__CSP_NONCE__');
  });

  it('keeps unknown /api/v1 paths a JSON 404 of the API (with its rate-limit headers)', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/no-such-thing' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ detail: 'Not Found' });
    expect(response.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('never answers the service paths with the application', async () => {
    for (const url of ['/api', '/api/v2/x', '/scim/v2/Nope', '/docs/nope.js', '/openapi.json/x']) {
      const response = await app.inject({ method: 'GET', url });
      expect([401, 404], url).toContain(response.statusCode);
      expect(response.headers['content-type'], url).toMatch(/json/);
      expect(response.body, url).not.toContain('dbops test build');
    }
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).not.toHaveProperty('detail');
    const spec = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(spec.json().openapi).toMatch(/^3\.1/);
  });

  it('answers other methods on unknown paths with a JSON 404', async () => {
    const response = await app.inject({ method: 'POST', url: '/projects', payload: {} });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: 'Not Found' });
  });

  it('tells the sign-in page which OAuth providers are configured', async () => {
    const response = await app.inject({ method: 'GET', url: '/web-config.json' });
    expect(response.json()).toEqual({ oauth_providers: [], signup_open: true });
  });

  it('classifies the service paths', () => {
    expect(isServicePath('/api/v1/projects')).toBe(true);
    expect(isServicePath('/docs')).toBe(true);
    expect(isServicePath('/readyz')).toBe(true);
    expect(isServicePath('/apiary')).toBe(false);
    expect(isServicePath('/documents')).toBe(false);
  });
});

describe('the web application before it is built', () => {
  it('answers its paths with 503 and says how to build it', async () => {
    const t = await createTestApp();
    const app = await buildApp(t.composition, { webRoot: path.join(os.tmpdir(), 'dbops-no-such-build') });
    try {
      const response = await app.inject({ method: 'GET', url: '/connections' });
      expect(response.statusCode).toBe(503);
      expect(response.json().detail).toContain('npm run build -w web');
      expect((await app.inject({ method: 'GET', url: '/api/v1/nope' })).statusCode).toBe(404);
    } finally {
      await app.close();
      await t.close();
    }
  });
});

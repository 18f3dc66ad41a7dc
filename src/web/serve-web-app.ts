// Serves the web application at `/` (docs/contract.md §13): the built files of web/dist, index.html for every
// other GET outside the service's own paths (so the app's links can be bookmarked), year-long caching
// for the content-hashed assets, and a Content-Security-Policy that allows only this origin.
// An unknown path under /api/, /scim/, /docs and the health and OpenAPI paths stays a JSON 404.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { NotFoundHandler } from '../http/errors.ts';
import type { App } from '../http/types.ts';
import { SOURCE_HASH_FILE } from './web-build.ts';

/**
 * Paths that belong to the service, with everything under them: never answered with the application.
 * `/metrics` is served on METRICS_PORT only; here it is a JSON 404 like any unknown service path.
 */
const SERVICE_PATHS = ['/api', '/scim', '/docs', '/openapi.json', '/healthz', '/readyz', '/metrics'];
/** Built by Vite with a content hash in every name: they never change under the same URL. */
const HASHED_ASSETS = '/assets/';

/** Where index.html carries the per-response nonce (read by the app for CodeMirror's <style> element). */
export const NONCE_PLACEHOLDER = '__CSP_NONCE__';

/**
 * Only this origin, for everything. The one exception is a nonce for <style> elements: CodeMirror
 * injects its theme as one, stamped with the nonce that index.html hands it (EditorView.cspNonce).
 */
export function webCsp(nonce: string): string {
  return [
    "default-src 'self'",
    "base-uri 'self'",
    "connect-src 'self'",
    "font-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "img-src 'self'",
    "object-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
  ].join('; ');
}
/** For the built files other than index.html: they never carry inline styles. */
export const WEB_CSP = webCsp('none').replace(" 'nonce-none'", '');
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface WebAppOptions {
  /** The built application (web/dist). Without its index.html the app's paths answer 503. */
  root: string;
  /** The OAuth providers configured, for the sign-in buttons. */
  oauthProviders: string[];
  signupOpen: boolean;
}

export function isServicePath(urlPath: string): boolean {
  return SERVICE_PATHS.some((prefix) => urlPath === prefix || urlPath.startsWith(`${prefix}/`));
}

export interface WebApp {
  /** The root not-found handler: the application for reads outside the service's paths. */
  notFound: NotFoundHandler;
  /** Registers the built files and the sign-in page's configuration. */
  register(app: App): Promise<void>;
}

export function createWebApp(options: WebAppOptions): WebApp {
  const indexFile = path.join(options.root, 'index.html');
  const indexHtml = fs.existsSync(indexFile) ? fs.readFileSync(indexFile, 'utf8') : undefined;
  const built = indexHtml !== undefined;

  const sendApp = (reply: FastifyReply) => {
    if (!built) {
      return reply
        .code(503)
        .send({ detail: 'The web application is not built: run `npm run build -w web` or `npm start`' });
    }
    const nonce = randomBytes(16).toString('base64');
    reply.header('cache-control', 'no-cache').header('content-security-policy', webCsp(nonce));
    return reply.type('text/html; charset=utf-8').send(indexHtml.replaceAll(NONCE_PLACEHOLDER, nonce));
  };

  const notFound: NotFoundHandler = (request, reply) => {
    const urlPath = request.url.split('?')[0] ?? '/';
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    if (!isRead || isServicePath(urlPath) || urlPath.startsWith(HASHED_ASSETS)) {
      return reply.code(404).send({ detail: 'Not Found' });
    }
    return sendApp(reply);
  };

  const register = async (app: App) => {
    if (built) {
      // One route per built file (wildcard off): a catch-all route would take unknown /api/v1 paths
      // away from the API's own not-found handler and its rate-limit headers.
      await app.register(fastifyStatic, {
        root: options.root,
        prefix: '/',
        wildcard: false,
        index: false,
        cacheControl: false,
        // index.html goes out through sendApp, with its nonce; the build stamp not at all.
        allowedPath: (pathName) => pathName !== '/index.html' && !pathName.endsWith(`/${SOURCE_HASH_FILE}`),
        setHeaders: (res, filePath) => {
          const relative = path.relative(options.root, filePath).split(path.sep).join('/');
          res.setHeader('cache-control', relative.startsWith('assets/') ? IMMUTABLE : 'no-cache');
          res.setHeader('content-security-policy', WEB_CSP);
        },
      });
    }
    // What the sign-in page offers; public, like the login route itself.
    app.get('/web-config.json', { schema: { hide: true } }, async (_request, reply) => {
      reply.header('cache-control', 'no-cache');
      return { oauth_providers: options.oauthProviders, signup_open: options.signupOpen };
    });
  };

  return { notFound, register };
}

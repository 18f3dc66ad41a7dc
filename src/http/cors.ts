// CORS for the web application on other origins (CORS_ORIGINS, docs/contract.md §3): those origins get
// credentialed CORS with preflight; any other origin gets no CORS header at all. A plain origin list
// is not enough with @fastify/cors: it would still send Allow-Credentials and Allow-Methods (and
// answer the preflight) to an origin it does not allow. A function that returns `false` for them
// makes the plugin add nothing.
import type { FastifyCorsOptions } from '@fastify/cors';

/** What a browser may send cross-origin: JSON bodies, API keys and the session's CSRF token. */
const ALLOWED_HEADERS = ['Content-Type', 'Authorization', 'X-CSRF-Token', 'X-Request-Id'];
/** What its scripts may read of a response besides the safelisted headers. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'WWW-Authenticate',
];

export function corsOptions(origins: readonly string[]): FastifyCorsOptions {
  // Compared as browsers send them: scheme and host in lower case, no default port.
  const allowed = new Set(origins.map((origin) => new URL(origin).origin));
  return {
    origin: (origin, callback) => {
      callback(null, origin !== undefined && allowed.has(origin) ? origin : false);
    },
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    // Browsers cap this (Chromium at 2 hours); 10 minutes keeps a configuration change quick to apply.
    maxAge: 600,
  };
}

// The route table of the service, for tests that must cover every route (the authorization matrix):
// each route's method, URL, declared `config` (action, auth) and schemas, read with an onRoute hook
// while the modules register their routes, checked against the table of the real app the harness
// built, so that a route registered anywhere else cannot slip past the tests that read this one.
import Fastify from 'fastify';
import type { Composition } from '../../src/compose.ts';
import type { App } from '../../src/http/types.ts';
import type { Action } from '../../src/security/policy.ts';
import type { JsonSchema } from './openapi-arbitraries.ts';

export interface RouteEntry {
  method: string;
  url: string;
  config: { action?: Action; auth?: 'public' | 'session' };
  schema: { body?: JsonSchema; querystring?: JsonSchema };
}

/** `METHOD /path` with every parameter written `:`, so names do not matter when comparing. */
export const routeKey = (method: string, url: string) => `${method} ${url.replace(/:[^/]+/g, ':')}`;

/**
 * The routes the modules register, with their options, as buildApp mounts them: under /api/v1, and
 * each module's own mounts (SCIM) under their prefix. HEAD routes are left out: Fastify derives them
 * from the GET routes, with the same config and hooks.
 */
export async function moduleRoutes(composition: Composition): Promise<RouteEntry[]> {
  const probe = Fastify();
  const routes: RouteEntry[] = [];
  probe.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      routes.push({
        method,
        url: route.url,
        config: (route.config ?? {}) as RouteEntry['config'],
        schema: (route.schema ?? {}) as RouteEntry['schema'],
      });
    }
  });
  // Registering only: the probe is never made ready, so its handlers never run.
  await probe.register(
    async (api) => {
      for (const module of composition.modules) module.routes?.(api as unknown as App);
    },
    { prefix: '/api/v1' },
  );
  for (const mount of composition.modules.flatMap((m) => m.mounts ?? []))
    await probe.register(async (scope) => mount.register(scope as unknown as App), { prefix: mount.prefix });
  return routes;
}

/**
 * Every method and URL the real app answers (HEAD and the CORS preflight `OPTIONS *` left out), read
 * from its router's printout: the tree's lines are `prefix` + `├── segment (METHODS)`, four
 * characters of prefix per level, and a child's path continues its parent's.
 */
export function servedRoutes(app: App): { method: string; url: string }[] {
  const stack: string[] = [];
  const served: { method: string; url: string }[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const [, indent = '', segment = '', methods = ''] = match;
    const depth = indent.length / 4;
    stack.length = depth;
    const url = (stack[depth - 1] ?? '') + segment;
    stack.push(url);
    for (const method of methods.split(', ').filter(Boolean)) {
      if (method === 'HEAD' || (method === 'OPTIONS' && url === '*')) continue;
      served.push({ method, url });
    }
  }
  return served;
}

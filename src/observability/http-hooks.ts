// What every answered request leaves behind: its count and duration in the metrics, labelled with
// the route's pattern (never a path with ids in it), and one log line when it completes. Health
// probes and the web application's polling of its pages are logged at debug only: at the default
// level they would drown the lines that matter.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { metrics, UNMATCHED_ROUTE } from './metrics.ts';

/** Probes a load balancer or an orchestrator sends every few seconds. */
const PROBES = new Set(['/healthz', '/readyz']);

/** The reads the web application repeats on a timer while a page is open (web/src, refetchInterval). */
const POLLED_READS = new Set([
  '/api/v1/runs',
  '/api/v1/runs/:id',
  '/api/v1/projects',
  '/api/v1/approvals',
  '/api/v1/projects/:pid/access-requests',
  '/api/v1/webhooks/:id/deliveries',
]);

type Children = {
  duration: ReturnType<typeof metrics.httpDuration.labels>;
  byStatus: Map<number, ReturnType<typeof metrics.httpRequests.labels>>;
};

export function registerHttpHooks(app: FastifyInstance): void {
  // prom-client hashes the label values on every call; the children of a method and route are
  // looked up once, so a request costs a map lookup, an increment and an observation.
  const children = new Map<string, Children>();
  const childrenOf = (method: string, route: string): Children => {
    const key = `${method} ${route}`;
    let found = children.get(key);
    if (!found) {
      found = { duration: metrics.httpDuration.labels(method, route), byStatus: new Map() };
      children.set(key, found);
    }
    return found;
  };

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
    const { method } = request;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    const child = childrenOf(method, route);
    child.duration.observe(ms / 1000);
    let counter = child.byStatus.get(status);
    if (!counter) {
      counter = metrics.httpRequests.labels(method, route, String(status));
      child.byStatus.set(status, counter);
    }
    counter.inc();

    const quiet = PROBES.has(route) || (method === 'GET' && status < 400 && POLLED_READS.has(route));
    const line = { method, route, status, ms: Math.round(ms * 10) / 10 };
    if (quiet) request.log.debug(line, 'request completed');
    else request.log.info(line, 'request completed');
    done();
  });
}

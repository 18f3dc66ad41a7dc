// /metrics on a port of its own (METRICS_PORT, bound to HOST like the API): Prometheus scrapes it
// from inside the deployment's network, and the API's port, which a load balancer exposes, never
// serves it. A plain node:http server: no auth, no rate limits, nothing of the API's request path.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Store } from '../store/db.ts';
import { collectProcessMetrics, registry } from './metrics.ts';
import { registerScrapeGauges } from './scrape-gauges.ts';

export interface MetricsServer {
  /** `http://host:port`, the port as bound (METRICS_PORT=0 picks a free one). */
  url: string;
  close(): Promise<void>;
}

let gaugesRegistered = false;

export async function serveMetrics(options: {
  port: number;
  host: string;
  store: Store;
  logger: { warn(obj: object, msg: string): void };
}): Promise<MetricsServer> {
  const { logger } = options;
  collectProcessMetrics();
  if (!gaugesRegistered) {
    gaugesRegistered = true;
    let lastWarned = 0;
    registerScrapeGauges({
      registry,
      store: options.store,
      onError: (error) => {
        // A store outage would otherwise log on every scrape.
        if (Date.now() - lastWarned < 60_000) return;
        lastWarned = Date.now();
        logger.warn(
          { err: error },
          'metrics: the store could not be read; queue and drift gauges keep their last values',
        );
      },
    });
  }
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.warn({ err: error }, 'metrics: a scrape failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('scrape failed\n');
      },
    );
  });
  // Scrapers keep their connection open between scrapes; a stop must not wait for them.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

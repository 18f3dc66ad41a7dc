// The routes outside /api/v1 that are part of the contract: /healthz (the process is up), /readyz
// (the store answers and its migrations are applied; docs/contract.md §2: 503 with Retry-After otherwise). `GET /`
// is the web application's (src/web/serve-web-app.ts).
import { Type } from 'typebox';
import type { App } from './types.ts';

const Health = Type.Object(
  { status: Type.Literal('ok') },
  { title: 'Health', description: 'The process is up' },
);
const Ready = Type.Object(
  { status: Type.Literal('ready') },
  { title: 'Ready', description: 'The store answers and its migrations are applied' },
);
const NotReady = Type.Object(
  { detail: Type.String() },
  { title: 'NotReady', description: 'Store unreachable or not migrated; retry after Retry-After seconds' },
);

/** Seconds a client waits before asking /readyz again. */
const READY_RETRY_AFTER = 5;

export function registerHealthRoutes(app: App, deps: { isReady: () => Promise<boolean> }): void {
  const tags = ['health'];
  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'health',
        tags,
        summary: 'Liveness: the process is up',
        response: { 200: Health },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'ready',
        tags,
        summary: 'Readiness: the store answers and its migrations are applied',
        response: { 200: Ready, 503: NotReady },
      },
    },
    async (_request, reply) => {
      if (await deps.isReady().catch(() => false)) return { status: 'ready' as const };
      return reply
        .code(503)
        .header('retry-after', String(READY_RETRY_AFTER))
        .send({ detail: 'Store unreachable or not migrated' });
    },
  );
}

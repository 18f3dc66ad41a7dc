// Refusals belong in the audit trail too: who tried what their role, their key's scope or their
// plan does not allow (403), CSRF failures included. Recorded once the answer is sent, so a refusal
// costs the caller no time; a failure to record is logged, never answered. Calls without valid
// credentials (401) have no actor to name: the rate limiter counts those per client IP.
import type { FastifyInstance } from 'fastify';
import type { Actor } from '../core/actors.ts';
import { actorOf } from './context.ts';

/** Writes one `request.denied` entry (the audit service, handed in by the composition root). */
export type DeniedRecorder = (actor: Actor, details: Record<string, unknown>) => Promise<void>;

export function registerDeniedAudit(app: FastifyInstance, recordDenied: DeniedRecorder): void {
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode !== 403 || !request.principal) return;
    try {
      await recordDenied(actorOf(request), {
        method: request.method,
        route: request.routeOptions.url ?? null,
        path: request.url.split('?')[0],
        required: request.routeOptions.config.action ?? null,
        request_id: request.id,
      });
    } catch (error) {
      request.log.warn({ err: error }, 'a denied request could not be audited');
    }
  });
}

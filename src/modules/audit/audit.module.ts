// Reading the audit trail (every service writes it through the shared audit service), and the
// hooks that make a request wait, before it answers, for the chain to take in the entries it wrote
// (src/modules/audit/audit.service.ts).
import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/types.ts';
import type { Module, Shared } from '../module.ts';
import { registerAuditRoutes } from './audit.routes.ts';
import type { AuditService } from './audit.service.ts';

export function auditModule({ audit, logger }: Shared): Module {
  return {
    name: 'audit',
    routes: (api) => {
      settleBeforeAnswering(api, audit, logger);
      registerAuditRoutes(api, { audit });
    },
  };
}

/**
 * Every route of `api`: the organizations whose entries the handler wrote are collected from the
 * handler on (preHandler: the body is parsed, the context lasts to the handler's end), and the
 * answer waits until their chain has taken those entries in. A pass that fails leaves the entries
 * waiting, committed, for the next pass; the change is done, so the answer is still sent.
 */
function settleBeforeAnswering(api: App, audit: AuditService, logger: Shared['logger']): void {
  const written = new WeakMap<FastifyRequest, Set<string | null>>();
  api.addHook('preHandler', (request, _reply, done) => {
    const orgs = new Set<string | null>();
    written.set(request, orgs);
    audit.collect(orgs, done);
  });
  api.addHook('onSend', async (request, _reply, payload) => {
    const orgs = written.get(request);
    if (orgs && orgs.size > 0) {
      written.delete(request);
      await audit.settle(orgs).catch((error: unknown) => {
        logger.warn({ err: error, reqId: request.id }, 'audit entries left waiting for their chain');
      });
    }
    return payload;
  });
}

import { actorOf } from '../../http/context.ts';
import { errors, IdParams, NoContent, Page, PageQuery } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import {
  AuditSinkSchema,
  CreateAuditSinkBody,
  CreatedAuditSinkSchema,
  SinkTestResult,
  UpdateAuditSinkBody,
} from './sinks.schemas.ts';
import type { SinksService } from './sinks.service.ts';

export function registerSinksRoutes(app: App, { sinks }: { sinks: SinksService }): void {
  const tags = ['audit'];
  const base = '/admin/audit-export/sinks';

  app.post(
    base,
    {
      config: { action: 'audit_sinks.manage' },
      schema: {
        operationId: 'createAuditSink',
        tags,
        summary:
          "Export the organization's audit log to a receiver; an http sink's secret is in this answer only",
        body: CreateAuditSinkBody,
        response: { 201: CreatedAuditSinkSchema, ...errors(401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await sinks.create(actorOf(request), request.body)),
  );

  app.get(
    base,
    {
      config: { action: 'audit_sinks.read' },
      schema: {
        operationId: 'listAuditSinks',
        tags,
        summary: "The organization's audit export sinks, with their cursor, lag and last error",
        querystring: PageQuery,
        response: { 200: Page(AuditSinkSchema), ...errors(401, 403) },
      },
    },
    async (request) => {
      const { page, page_size } = request.query;
      const { rows, total } = await sinks.list(actorOf(request), { page, page_size });
      return { items: rows, total, page, page_size };
    },
  );

  app.get(
    `${base}/:id`,
    {
      config: { action: 'audit_sinks.read' },
      schema: {
        operationId: 'getAuditSink',
        tags,
        summary: 'One sink: last_exported_seq, lag, last_error (never its token or secret)',
        params: IdParams,
        response: { 200: AuditSinkSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => sinks.get(actorOf(request), request.params.id),
  );

  app.patch(
    `${base}/:id`,
    {
      config: { action: 'audit_sinks.manage' },
      schema: {
        operationId: 'updateAuditSink',
        tags,
        summary: 'Change the URL, token, headers or active flag (the cursor stays)',
        params: IdParams,
        body: UpdateAuditSinkBody,
        response: { 200: AuditSinkSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => sinks.update(actorOf(request), request.params.id, request.body),
  );

  app.delete(
    `${base}/:id`,
    {
      config: { action: 'audit_sinks.manage' },
      schema: {
        operationId: 'deleteAuditSink',
        tags,
        summary: 'Stop exporting to this sink',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await sinks.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    `${base}/:id/test`,
    {
      config: { action: 'audit_sinks.manage' },
      schema: {
        operationId: 'testAuditSink',
        tags,
        summary:
          'Send one synthetic entry (seq 0) now and report how the receiver answered (200 even when not ok)',
        params: IdParams,
        response: { 200: SinkTestResult, ...errors(401, 403, 404) },
      },
    },
    async (request) => sinks.test(actorOf(request), request.params.id),
  );
}

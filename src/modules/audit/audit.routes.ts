import { actorOf } from '../../http/context.ts';
import { errors, Page, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { AuditEntrySchema, AuditQuery, toAuditResponse } from './audit.schemas.ts';
import type { AuditService } from './audit.service.ts';

export function registerAuditRoutes(app: App, { audit }: { audit: AuditService }): void {
  app.get(
    '/audit',
    {
      config: { action: 'audit.read' },
      schema: {
        operationId: 'listAudit',
        tags: ['audit'],
        summary: 'List audit entries of the organization, newest first (organization admins)',
        querystring: AuditQuery,
        response: { 200: Page(AuditEntrySchema), ...errors(401, 403) },
      },
    },
    async (request) => {
      const { page, page_size, from, to, ...filter } = request.query;
      const paging = { page, page_size };
      const found = await audit.list(
        actorOf(request),
        { ...filter, from: from ? new Date(from) : undefined, to: to ? new Date(to) : undefined },
        paging,
      );
      return pageOf(paging, found, toAuditResponse);
    },
  );
}

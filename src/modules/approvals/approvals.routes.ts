import { actorOf } from '../../http/context.ts';
import { errors, IdParams, Page, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ApprovalSchema, ApprovalsQuery, DecideBody } from './approvals.schemas.ts';
import type { ApprovalsService } from './approvals.service.ts';

export function registerApprovalsRoutes(app: App, { approvals }: { approvals: ApprovalsService }): void {
  const tags = ['approvals'];

  app.get(
    '/approvals',
    {
      config: { action: 'approvals.read' },
      schema: {
        operationId: 'listApprovals',
        tags,
        summary: 'Approvals of the projects the caller can see, newest first',
        querystring: ApprovalsQuery,
        response: { 200: Page(ApprovalSchema), ...errors(401, 403) },
      },
    },
    async (request) => {
      const { page, page_size, ...filter } = request.query;
      const paging = { page, page_size };
      const { items, total } = await approvals.list(actorOf(request), filter, paging);
      return pageOf(paging, { rows: items, total });
    },
  );

  app.get(
    '/approvals/:id',
    {
      config: { action: 'approvals.read' },
      schema: {
        operationId: 'getApproval',
        tags,
        summary: 'An approval with its decisions',
        params: IdParams,
        response: { 200: ApprovalSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => approvals.get(actorOf(request), request.params.id),
  );

  app.patch(
    '/approvals/:id',
    {
      config: { action: 'approval.decide' },
      schema: {
        operationId: 'decideApproval',
        tags,
        summary: 'Approve or reject (project admins; organization owners and admins)',
        description:
          'Each user decides once (a second decision answers 409), and only on a pending approval ' +
          '(409 otherwise). `required_approvals` distinct approvals grant it, one rejection rejects it. ' +
          'The requester may not approve their own request unless the policy rule that required it ' +
          'allows self-approval (403); they may reject it, which withdraws it. When granted, the runs ' +
          'waiting for it are queued; when rejected, they are cancelled. An access request becomes an ' +
          'active grant when approved. Needs the write scope.',
        params: IdParams,
        body: DecideBody,
        response: { 200: ApprovalSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => approvals.decide(actorOf(request), request.params.id, request.body),
  );
}

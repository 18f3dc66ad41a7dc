import { actorOf } from '../../http/context.ts';
import { errors, IdParams, Page, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ProjectParams } from '../projects/projects.schemas.ts';
import {
  AccessRequestSchema,
  AccessRequestsQuery,
  CreateAccessRequestBody,
} from './access-requests.schemas.ts';
import type { AccessRequestsService } from './access-requests.service.ts';

export function registerAccessRequestsRoutes(
  app: App,
  { accessRequests }: { accessRequests: AccessRequestsService },
): void {
  const tags = ['access-requests'];

  app.post(
    '/projects/:pid/access-requests',
    {
      config: { action: 'access_request.create' },
      schema: {
        operationId: 'createAccessRequest',
        tags,
        summary: 'Ask for a stronger role on the project, or on one of its connections, for a while',
        description:
          'Any member of the project may ask (non-members get 404). Answers 201 with the request, ' +
          'status `pending`, and its pending approval (kind `access_request`): one project admin, ' +
          'never the requester, decides it through `PATCH /approvals/{id}` within 24 hours, or it ' +
          'expires. Once approved the grant is `active`: the role adds to the membership (on that ' +
          'connection only, when `connection_id` is given) until `expires_at`. Asking for a role one ' +
          'already has, or for the same access while such a request is pending, answers 409.',
        params: ProjectParams,
        body: CreateAccessRequestBody,
        response: { 201: AccessRequestSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await accessRequests.create(actorOf(request), request.params.pid, request.body)),
  );

  app.get(
    '/projects/:pid/access-requests',
    {
      config: { action: 'project.read' },
      schema: {
        operationId: 'listAccessRequests',
        tags,
        summary: "The project's access requests, newest first (visible to its members)",
        params: ProjectParams,
        querystring: AccessRequestsQuery,
        response: { 200: Page(AccessRequestSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { page, page_size, ...filter } = request.query;
      const paging = { page, page_size };
      const { items, total } = await accessRequests.list(
        actorOf(request),
        request.params.pid,
        filter,
        paging,
      );
      return pageOf(paging, { rows: items, total });
    },
  );

  app.get(
    '/access-requests/:id',
    {
      config: { action: 'project.read' },
      schema: {
        operationId: 'getAccessRequest',
        tags,
        summary: 'An access request with its approval',
        params: IdParams,
        response: { 200: AccessRequestSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => accessRequests.get(actorOf(request), request.params.id),
  );

  app.post(
    '/access-requests/:id/revoke',
    {
      config: { action: 'access_request.revoke' },
      schema: {
        operationId: 'revokeAccessRequest',
        tags,
        summary: 'End an active grant now (its holder, or a project admin)',
        description: 'Only an active grant can be revoked (409 otherwise). Needs the write scope.',
        params: IdParams,
        response: { 200: AccessRequestSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => accessRequests.revoke(actorOf(request), request.params.id),
  );
}

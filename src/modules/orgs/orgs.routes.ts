import { actorOf } from '../../http/context.ts';
import { errors } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { OrganizationSchema, toOrgResponse, UpdateOrgBody } from './orgs.schemas.ts';
import type { OrgsService } from './orgs.service.ts';

export function registerOrgsRoutes(app: App, { orgs }: { orgs: OrgsService }): void {
  const tags = ['organization'];

  app.get(
    '/orgs/current',
    {
      config: { action: 'org.read' },
      schema: {
        operationId: 'getCurrentOrg',
        tags,
        summary: "The caller's organization",
        response: { 200: OrganizationSchema, ...errors(401, 403) },
      },
    },
    async (request) => toOrgResponse(await orgs.current(actorOf(request))),
  );

  app.patch(
    '/orgs/current',
    {
      config: { action: 'org.update' },
      schema: {
        operationId: 'updateCurrentOrg',
        tags,
        summary: 'Rename the organization (organization admins)',
        body: UpdateOrgBody,
        response: { 200: OrganizationSchema, ...errors(401, 403) },
      },
    },
    async (request) => toOrgResponse(await orgs.rename(actorOf(request), request.body.name)),
  );
}

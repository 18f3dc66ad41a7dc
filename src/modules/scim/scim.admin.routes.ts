import { actorOf } from '../../http/context.ts';
import { errors } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { ScimAdmin } from './scim.admin.ts';
import { GroupMappingsBody, ScimConfigSchema, ScimTokenSchema } from './scim.schemas.ts';

export function registerScimAdminRoutes(app: App, { scim }: { scim: ScimAdmin }): void {
  const tags = ['scim'];

  app.get(
    '/admin/scim',
    {
      config: { action: 'scim.read' },
      schema: {
        operationId: 'getScimConfig',
        tags,
        summary: "The organization's SCIM settings (organization admins)",
        response: { 200: ScimConfigSchema, ...errors(401, 403) },
      },
    },
    async (request) => scim.config(actorOf(request)),
  );

  app.post(
    '/admin/scim/token',
    {
      config: { action: 'scim.manage' },
      schema: {
        operationId: 'createScimToken',
        tags,
        summary: 'Make the SCIM token (shown once; replaces the previous one at once)',
        response: { 201: ScimTokenSchema, ...errors(401, 403) },
      },
    },
    async (request, reply) => reply.code(201).send(await scim.createToken(actorOf(request))),
  );

  app.put(
    '/admin/scim/group-mappings',
    {
      config: { action: 'scim.manage' },
      schema: {
        operationId: 'setScimGroupMappings',
        tags,
        summary: 'Map identity-provider groups to organization and project roles',
        body: GroupMappingsBody,
        response: { 200: ScimConfigSchema, ...errors(401, 403) },
      },
    },
    async (request) => scim.setMappings(actorOf(request), request.body.mappings),
  );
}

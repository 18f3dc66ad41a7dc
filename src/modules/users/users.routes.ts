import { actorOf } from '../../http/context.ts';
import { errors, IdParams, NoContent, Page, PageQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { CreateUserBody, toUserResponse, UpdateUserBody, UserSchema } from './users.schemas.ts';
import type { UsersService } from './users.service.ts';

export function registerUsersRoutes(app: App, { users }: { users: UsersService }): void {
  const tags = ['users'];

  app.get(
    '/users',
    {
      config: { action: 'users.read' },
      schema: {
        operationId: 'listUsers',
        tags,
        summary: 'List the users of the organization, deleted ones included',
        querystring: PageQuery,
        response: { 200: Page(UserSchema), ...errors(401, 403) },
      },
    },
    async (request) => {
      const paging = request.query;
      return pageOf(paging, await users.list(actorOf(request), paging), toUserResponse);
    },
  );

  app.post(
    '/users',
    {
      config: { action: 'users.manage' },
      schema: {
        operationId: 'createUser',
        tags,
        summary: 'Create a user in the organization (organization admins; owners for the owner role)',
        body: CreateUserBody,
        response: { 201: UserSchema, ...errors(401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toUserResponse(await users.create(actorOf(request), request.body))),
  );

  app.get(
    '/users/:id',
    {
      config: { action: 'users.read' },
      schema: {
        operationId: 'getUser',
        tags,
        summary: 'Get a user',
        params: IdParams,
        response: { 200: UserSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toUserResponse(await users.get(actorOf(request), request.params.id)),
  );

  app.patch(
    '/users/:id',
    {
      config: { action: 'users.manage' },
      schema: {
        operationId: 'updateUser',
        tags,
        summary: 'Rename, change the role of, deactivate or reactivate a user',
        description: 'Deactivating a user revokes their sessions; their API keys stop working at once.',
        params: IdParams,
        body: UpdateUserBody,
        response: { 200: UserSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => toUserResponse(await users.update(actorOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/users/:id',
    {
      config: { action: 'users.manage' },
      schema: {
        operationId: 'deleteUser',
        tags,
        summary: 'Soft-delete a user: sessions and keys revoked, audit kept',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await users.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/admin/users/:id/purge',
    {
      config: { action: 'users.purge' },
      schema: {
        operationId: 'purgeUser',
        tags,
        summary: 'Remove the personal data of a soft-deleted user for good (organization owners)',
        params: IdParams,
        response: { 200: UserSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => toUserResponse(await users.purge(actorOf(request), request.params.id)),
  );
}

import { actorOf } from '../../http/context.ts';
import { errors, IdParams, NoContent, Page, PageQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema, toApiKeyResponse } from './api-keys.schemas.ts';
import type { ApiKeysService } from './api-keys.service.ts';

export function registerApiKeysRoutes(app: App, { apiKeys }: { apiKeys: ApiKeysService }): void {
  const tags = ['api-keys'];

  app.post(
    '/api-keys',
    {
      config: { action: 'api_keys.manage' },
      schema: {
        operationId: 'createApiKey',
        tags,
        summary: 'Create an API key for the caller; the secret is in this answer only',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKeySchema, ...errors(401, 403) },
      },
    },
    async (request, reply) => {
      const { secret, ...key } = await apiKeys.create(actorOf(request), request.body);
      return reply.code(201).send({ ...toApiKeyResponse(key), secret });
    },
  );

  app.get(
    '/api-keys',
    {
      config: { action: 'api_keys.read' },
      schema: {
        operationId: 'listApiKeys',
        tags,
        summary: "The caller's API keys, revoked ones included (never the secret)",
        querystring: PageQuery,
        response: { 200: Page(ApiKeySchema), ...errors(401, 403) },
      },
    },
    async (request) => {
      const paging = request.query;
      return pageOf(paging, await apiKeys.list(actorOf(request), paging), toApiKeyResponse);
    },
  );

  app.get(
    '/api-keys/:id',
    {
      config: { action: 'api_keys.read' },
      schema: {
        operationId: 'getApiKey',
        tags,
        summary: "One of the caller's API keys (never the secret)",
        params: IdParams,
        response: { 200: ApiKeySchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toApiKeyResponse(await apiKeys.get(actorOf(request), request.params.id)),
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { action: 'api_keys.manage' },
      schema: {
        operationId: 'revokeApiKey',
        tags,
        summary: 'Revoke an API key: refused at once from then on (admin scope)',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await apiKeys.revoke(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
}

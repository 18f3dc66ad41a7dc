import { actorOf } from '../../http/context.ts';
import { errors, IdParams, NoContent, Page, PageQuery } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import {
  CreateWebhookBody,
  DeliveryParams,
  DeliverySchema,
  ProjectParams,
  toDeliveryResponse,
  toWebhookResponse,
  UpdateWebhookBody,
  WebhookSchema,
  WebhookWithSecretSchema,
} from './webhooks.schemas.ts';
import type { WebhooksService } from './webhooks.service.ts';

export function registerWebhooksRoutes(app: App, { webhooks }: { webhooks: WebhooksService }): void {
  const tags = ['webhooks'];

  app.post(
    '/projects/:pid/webhooks',
    {
      config: { action: 'webhook.manage' },
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Subscribe a URL to events of the project; the signing secret is in this answer only',
        params: ProjectParams,
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecretSchema, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await webhooks.create(actorOf(request), request.params.pid, request.body);
      return reply.code(201).send({ ...toWebhookResponse(webhook), secret });
    },
  );

  app.get(
    '/projects/:pid/webhooks',
    {
      config: { action: 'webhook.read' },
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: "The project's webhooks, newest first (never the secret)",
        params: ProjectParams,
        querystring: PageQuery,
        response: { 200: Page(WebhookSchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { page, page_size } = request.query;
      const { rows, total } = await webhooks.list(actorOf(request), request.params.pid, { page, page_size });
      return { items: rows.map(toWebhookResponse), total, page, page_size };
    },
  );

  app.get(
    '/webhooks/:id',
    {
      config: { action: 'webhook.read' },
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'One webhook (never the secret)',
        params: IdParams,
        response: { 200: WebhookSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => toWebhookResponse(await webhooks.get(actorOf(request), request.params.id)),
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { action: 'webhook.manage' },
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Change the URL, events, description or active flag',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) =>
      toWebhookResponse(await webhooks.update(actorOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { action: 'webhook.manage' },
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a webhook and its delivery log',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(actorOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config: { action: 'webhook.manage' },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'A new signing secret (in this answer only); the old one also signs for 24 hours',
        params: IdParams,
        response: { 200: WebhookWithSecretSchema, ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { webhook, secret } = await webhooks.rotateSecret(actorOf(request), request.params.id);
      return { ...toWebhookResponse(webhook), secret };
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { action: 'webhook.read' },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: "The webhook's deliveries, newest first",
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Page(DeliverySchema), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { page, page_size } = request.query;
      const { rows, total } = await webhooks.deliveries(actorOf(request), request.params.id, {
        page,
        page_size,
      });
      return { items: rows.map(toDeliveryResponse), total, page, page_size };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:did/redeliver',
    {
      config: { action: 'webhook.manage' },
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags,
        summary: "A new attempt of the delivery's event (same webhook-id header)",
        params: DeliveryParams,
        response: { 202: DeliverySchema, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { id, did } = request.params;
      return reply.code(202).send(toDeliveryResponse(await webhooks.redeliver(actorOf(request), id, did)));
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      config: { action: 'webhook.manage' },
      schema: {
        operationId: 'testWebhook',
        tags,
        summary: 'Send a webhook.test event to this webhook',
        params: IdParams,
        response: { 202: DeliverySchema, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(toDeliveryResponse(await webhooks.test(actorOf(request), request.params.id))),
  );
}

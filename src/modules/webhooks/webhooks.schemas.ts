import { Type } from 'typebox';
import { DELIVERY_STATUSES, EVENT_TYPES } from '../../core/vocabulary.ts';
import { Nullable, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { Webhook, WebhookDelivery } from '../../store/tables.ts';

const EventName = StringEnum([...EVENT_TYPES, '*'] as const, {
  description: 'An event type this service emits, or "*" for all of them',
});

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'http or https. Private, loopback and link-local addresses are refused unless the server allows them (WEBHOOK_ALLOW_PRIVATE); cloud metadata addresses always. An IPv6 address that carries an IPv4 one (mapped, compatible, NAT64, 6to4, Teredo) is judged by it. Redirects are never followed.',
});

const Events = Type.Array(EventName, { minItems: 1, maxItems: 50, uniqueItems: true });

export const WebhookSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    active: Type.Boolean(),
    disabled_reason: Nullable(Type.String({ description: 'Why the service stopped it (a 410 Gone answer)' })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Webhook' },
);

export const WebhookWithSecretSchema = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.String({
      description: 'whsec_ + base64 of 32 random bytes: the signing secret, shown in this answer only',
    }),
  },
  { title: 'WebhookWithSecret' },
);

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    active: Type.Optional(Type.Boolean({ default: true })),
  },
  { title: 'CreateWebhookRequest', additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    active: Type.Optional(
      Type.Boolean({ description: 'true again after a 410 clears disabled_reason and resumes deliveries' }),
    ),
  },
  { title: 'UpdateWebhookRequest', additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    id: Uuid,
    event_id: Uuid,
    event_type: Type.String(),
    status: StringEnum(DELIVERY_STATUSES),
    attempts: Type.Integer({ minimum: 0 }),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    last_response_excerpt: Nullable(
      Type.String({ description: "The first 1024 bytes of the last answer's body" }),
    ),
    last_attempt_at: Nullable(Timestamp),
    next_attempt_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { title: 'WebhookDelivery' },
);

export const ProjectParams = Type.Object({ pid: Uuid });
export const DeliveryParams = Type.Object({ id: Uuid, did: Uuid });

export function toWebhookResponse(webhook: Webhook) {
  return {
    id: webhook.id,
    project_id: webhook.project_id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    active: webhook.active,
    disabled_reason: webhook.disabled_reason,
    created_at: toTimestamp(webhook.created_at),
    updated_at: toTimestamp(webhook.updated_at),
  };
}

export function toDeliveryResponse(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.last_status_code,
    last_error: delivery.last_error,
    last_response_excerpt: delivery.last_response_excerpt,
    last_attempt_at: toTimestamp(delivery.last_attempt_at),
    next_attempt_at: toTimestamp(delivery.next_attempt_at),
    created_at: toTimestamp(delivery.created_at),
  };
}

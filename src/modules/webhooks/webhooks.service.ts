// Webhooks of a project (docs/contract.md §11.1): CRUD, the secret shown once and sealed at rest, rotation (both
// secrets sign for 24 hours), the delivery log, redelivery and the test event. Every change is
// audited in its transaction; the URL passes the address guard at save (and again at every connect,
// webhook-delivery.ts).
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { notFound } from '../../core/errors.ts';
import type { Action } from '../../security/policy.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Webhook } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { TargetGuard } from '../connections/target-guard.ts';
import { requireProject, requireProjectResource } from '../projects/projects.access.ts';
import { checkOutboundUrl } from './outbound-url.ts';
import { type DeliveryWorker, SECRET_PURPOSE } from './webhook-delivery.ts';
import { newSigningSecret } from './webhook-signing.ts';
import {
  deleteWebhook,
  deliveriesQuery,
  findDelivery,
  findWebhook,
  insertDeliveries,
  insertWebhook,
  projectWebhooksQuery,
  updateWebhook,
} from './webhooks.repo.ts';

/** How long the secret before a rotation keeps signing (docs/contract.md §11.1). */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null;
  active?: boolean;
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

export function createWebhooksService(deps: {
  db: Db;
  box: SecretBox;
  audit: AuditService;
  guard: TargetGuard;
  worker: DeliveryWorker;
  now: () => Date;
}) {
  const { db, box, audit, guard, worker, now } = deps;

  const checkUrl = (raw: string) => checkOutboundUrl(guard, raw, '; use a token in its path or query');

  /** The webhook and its project, or 404 "Webhook not found" when the caller cannot see it. */
  async function load(executor: Db, actor: Actor, id: string, action: Action): Promise<Webhook> {
    const webhook = await findWebhook(executor, actor.principal.orgId, id);
    return (await requireProjectResource(executor, actor, { name: 'Webhook', row: webhook }, action)).row;
  }

  const target = (webhook: Webhook) => ({ type: 'webhook', id: webhook.id, label: webhook.url });

  return {
    async create(actor: Actor, projectId: string, input: WebhookInput) {
      await requireProject(db, actor, projectId, 'webhook.manage');
      const url = await checkUrl(input.url);
      const secret = newSigningSecret();
      return db.transaction().execute(async (trx) => {
        const at = now();
        const webhook = await insertWebhook(trx, {
          id: randomUUID(),
          org_id: actor.principal.orgId,
          project_id: projectId,
          url,
          events: input.events,
          description: input.description ?? null,
          active: input.active ?? true,
          disabled_reason: null,
          secret_sealed: box.seal(secret, SECRET_PURPOSE),
          created_at: at,
          updated_at: at,
        });
        await audit.record(trx, actor, {
          action: 'webhook.create',
          projectId,
          target: target(webhook),
          details: { events: webhook.events, active: webhook.active },
        });
        return { webhook, secret };
      });
    },

    async list(actor: Actor, projectId: string, page: PageRequest) {
      await requireProject(db, actor, projectId, 'webhook.read');
      return paginate(projectWebhooksQuery(db, projectId), page);
    },

    get: (actor: Actor, id: string) => load(db, actor, id, 'webhook.read'),

    async update(actor: Actor, id: string, input: Partial<WebhookInput>) {
      const url = input.url === undefined ? undefined : await checkUrl(input.url);
      return db.transaction().execute(async (trx) => {
        const webhook = await load(trx, actor, id, 'webhook.manage');
        const updated = await updateWebhook(trx, id, {
          ...(url !== undefined && { url }),
          ...(input.events !== undefined && { events: input.events }),
          ...(input.description !== undefined && { description: input.description }),
          // Turned on again by a person: the reason the service stopped it no longer holds.
          ...(input.active !== undefined && {
            active: input.active,
            ...(input.active && { disabled_reason: null }),
          }),
          updated_at: now(),
        });
        await audit.record(trx, actor, {
          action: 'webhook.update',
          projectId: webhook.project_id,
          target: target(updated),
          details: { changed: Object.keys(input) },
        });
        return updated;
      });
    },

    async remove(actor: Actor, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const webhook = await load(trx, actor, id, 'webhook.manage');
        await deleteWebhook(trx, id);
        await audit.record(trx, actor, {
          action: 'webhook.delete',
          projectId: webhook.project_id,
          target: target(webhook),
        });
      });
    },

    async rotateSecret(actor: Actor, id: string) {
      const secret = newSigningSecret();
      return db.transaction().execute(async (trx) => {
        const webhook = await load(trx, actor, id, 'webhook.manage');
        const updated = await updateWebhook(trx, id, {
          secret_sealed: box.seal(secret, SECRET_PURPOSE),
          previous_secret_sealed: webhook.secret_sealed,
          previous_secret_expires_at: new Date(now().getTime() + ROTATION_OVERLAP_MS),
          updated_at: now(),
        });
        await audit.record(trx, actor, {
          action: 'webhook.rotate_secret',
          projectId: webhook.project_id,
          target: target(webhook),
        });
        return { webhook: updated, secret };
      });
    },

    async deliveries(actor: Actor, id: string, page: PageRequest) {
      await load(db, actor, id, 'webhook.read');
      return paginate(deliveriesQuery(db, id), page);
    },

    /** One new attempt of a delivery's event, with the same `webhook-id` (receivers may dedupe on it). */
    async redeliver(actor: Actor, id: string, deliveryId: string) {
      const delivery = await db.transaction().execute(async (trx) => {
        const webhook = await load(trx, actor, id, 'webhook.manage');
        const found = await findDelivery(trx, id, deliveryId);
        if (!found) throw notFound('Delivery');
        const updated = await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', next_attempt_at: now(), locked_until: null })
          .where('id', '=', deliveryId)
          .returningAll()
          .executeTakeFirstOrThrow();
        await audit.record(trx, actor, {
          action: 'webhook.redeliver',
          projectId: webhook.project_id,
          target: target(webhook),
          details: { delivery_id: deliveryId, event_id: found.event_id },
        });
        return updated;
      });
      await worker.schedule(delivery.id, 0);
      return delivery;
    },

    /** A `webhook.test` event to this webhook only (not fanned out to the project's others). */
    async test(actor: Actor, id: string) {
      const delivery = await db.transaction().execute(async (trx) => {
        const webhook = await load(trx, actor, id, 'webhook.manage');
        const at = now();
        const eventId = randomUUID();
        await trx
          .insertInto('events')
          .values({
            id: eventId,
            org_id: webhook.org_id,
            project_id: webhook.project_id,
            type: 'webhook.test',
            data: JSON.stringify({ webhook_id: webhook.id, url: webhook.url }),
            created_at: at,
            // Delivered below to this webhook alone: the fan-out must not pick it up.
            dispatched_at: at,
          })
          .execute();
        const row = {
          id: randomUUID(),
          webhook_id: webhook.id,
          event_id: eventId,
          event_type: 'webhook.test' as const,
          status: 'pending' as const,
          next_attempt_at: at,
          created_at: at,
        };
        await insertDeliveries(trx, [row]);
        await audit.record(trx, actor, {
          action: 'webhook.test',
          projectId: webhook.project_id,
          target: target(webhook),
          details: { delivery_id: row.id },
        });
        return {
          ...row,
          attempts: 0,
          last_status_code: null,
          last_error: null,
          last_response_excerpt: null,
          last_attempt_at: null,
          locked_until: null,
        };
      });
      await worker.schedule(delivery.id, 0);
      return delivery;
    },
  };
}

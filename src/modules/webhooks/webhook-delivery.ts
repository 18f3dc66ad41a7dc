// One attempt of one delivery, as the job `webhook_deliver` does it: sign, send to the vetted address,
// record the outcome, and schedule the next attempt by the retry schedule. Only a 2xx answer is a
// success; `Retry-After` on 429 or 503 postpones the retry to at least then; 410 Gone disables the
// webhook and stops its retries. Retries are this code's, not pg-boss's, because their times are the
// contract (docs/contract.md §11.1) and the delivery row must show them.

import type { WebhooksConfig } from '../../config.ts';
import { systemActor } from '../../core/actors.ts';
import { metrics } from '../../observability/metrics.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Db } from '../../store/db.ts';
import type { DomainEvent, Webhook, WebhookDelivery } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { TargetGuard } from '../connections/target-guard.ts';
import type { JobSender, Logger } from '../module.ts';
import { postPinned } from './outbound-http.ts';
import { signedHeaders } from './webhook-signing.ts';
import {
  claimDelivery,
  failPendingDeliveries,
  findWebhookById,
  recordAttempt,
  updateWebhook,
} from './webhooks.repo.ts';

export const WEBHOOK_DELIVER_QUEUE = 'webhook_deliver';

/** Retries are spread by up to this share of their delay, so a receiver's recovery is not stampeded. */
const JITTER = 0.1;

export const SECRET_PURPOSE = 'webhook-secret';

export interface DeliveryDeps {
  db: Db;
  box: SecretBox;
  audit: AuditService;
  guard: TargetGuard;
  config: WebhooksConfig;
  jobs: JobSender;
  logger: Logger;
  now: () => Date;
}

/** The body every receiver gets (docs/contract.md §11.1): the event, with its subject resource as `data`. */
export function eventPayload(event: DomainEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: `${event.created_at.toISOString().slice(0, 19)}Z`,
    project_id: event.project_id,
    data: event.data,
  });
}

/** The secrets that sign now: the current one, and the one before a rotation for its 24 hours. */
export function signingSecrets(box: SecretBox, webhook: Webhook, now: Date): string[] {
  const secrets = [box.open(webhook.secret_sealed, SECRET_PURPOSE)];
  if (
    webhook.previous_secret_sealed &&
    webhook.previous_secret_expires_at &&
    webhook.previous_secret_expires_at > now
  )
    secrets.push(box.open(webhook.previous_secret_sealed, SECRET_PURPOSE));
  return secrets;
}

/** Seconds until the retry after `attempts` failed attempts, or null when the schedule is spent. */
export function retryDelaySeconds(
  schedule: readonly number[],
  attempts: number,
  retryAfterSeconds: number | null,
  random = Math.random,
): number | null {
  const base = schedule[attempts - 1];
  if (base === undefined) return null;
  const jittered = base * (1 + JITTER * random());
  // A receiver's Retry-After is honoured, capped at a day so one answer cannot park a delivery forever.
  return Math.ceil(Math.max(jittered, Math.min(retryAfterSeconds ?? 0, 86_400)));
}

export function createDeliveryWorker(deps: DeliveryDeps) {
  const { db, box, audit, guard, config, jobs, logger, now } = deps;

  async function schedule(deliveryId: string, delaySeconds: number): Promise<void> {
    await jobs.send(WEBHOOK_DELIVER_QUEUE, { delivery_id: deliveryId }, { startAfter: delaySeconds });
  }

  async function disable(webhook: Webhook, reason: string): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await updateWebhook(trx, webhook.id, { active: false, disabled_reason: reason, updated_at: now() });
      await failPendingDeliveries(trx, webhook.id, reason);
      await audit.record(trx, systemActor(WEBHOOK_DELIVER_QUEUE), {
        action: 'webhook.disable',
        orgId: webhook.org_id,
        projectId: webhook.project_id,
        target: { type: 'webhook', id: webhook.id, label: webhook.url },
        details: { reason },
      });
    });
  }

  async function attempt(delivery: WebhookDelivery, webhook: Webhook, event: DomainEvent) {
    const url = new URL(webhook.url);
    const body = eventPayload(event);
    const at = now();
    const headers = signedHeaders(
      signingSecrets(box, webhook, at),
      delivery.id,
      Math.floor(at.getTime() / 1000),
      body,
    );
    let addresses: string[];
    try {
      // Checked again at connect, on this answer of the resolver, and the socket goes to it.
      addresses = await guard.assertAllowed(url.hostname.replace(/^\[|\]$/g, ''));
    } catch (error) {
      return { ok: false as const, error: (error as Error).message };
    }
    return postPinned({ url, address: addresses[0]!, headers, body, timeoutMs: config.timeoutMs });
  }

  return {
    /** Works one job: at most one attempt of the delivery, whatever duplicates of the job exist. */
    async deliver(deliveryId: string): Promise<void> {
      const started = now();
      const claimed = await claimDelivery(
        db,
        deliveryId,
        started,
        new Date(started.getTime() + config.timeoutMs + 30_000),
      );
      if (!claimed) return;
      const webhook = await findWebhookById(db, claimed.webhook_id);
      const event = await db
        .selectFrom('events')
        .selectAll()
        .where('id', '=', claimed.event_id)
        .executeTakeFirst();
      if (!webhook || !event) return;
      if (!webhook.active) {
        await failPendingDeliveries(db, webhook.id, webhook.disabled_reason ?? 'The webhook is inactive');
        return;
      }
      const outcome = await attempt(claimed, webhook, event);
      const attempts = claimed.attempts + 1;
      const base = { attempts, last_attempt_at: started };
      if (outcome.ok && outcome.status >= 200 && outcome.status < 300) {
        await recordAttempt(db, claimed.id, {
          ...base,
          status: 'succeeded',
          last_status_code: outcome.status,
          last_error: null,
          last_response_excerpt: outcome.excerpt,
          next_attempt_at: null,
        });
        metrics.webhookDeliveries.labels('succeeded').inc();
        return;
      }
      if (outcome.ok && outcome.status === 410) {
        await recordAttempt(db, claimed.id, {
          ...base,
          status: 'failed',
          last_status_code: 410,
          last_error: 'The receiver answered 410 Gone: webhook disabled',
          last_response_excerpt: outcome.excerpt,
          next_attempt_at: null,
        });
        await disable(webhook, `The receiver answered 410 Gone at ${started.toISOString().slice(0, 19)}Z`);
        metrics.webhookDeliveries.labels('failed').inc();
        return;
      }
      const honoured =
        outcome.ok && (outcome.status === 429 || outcome.status === 503) ? outcome.retryAfterSeconds : null;
      const delay = retryDelaySeconds(config.retrySchedule, attempts, honoured);
      const next = delay === null ? null : new Date(now().getTime() + delay * 1000);
      await recordAttempt(db, claimed.id, {
        ...base,
        status: next ? 'pending' : 'failed',
        last_status_code: outcome.ok ? outcome.status : null,
        last_error: outcome.ok
          ? outcome.status >= 300 && outcome.status < 400
            ? `The receiver answered ${outcome.status} (redirects are not followed)`
            : `The receiver answered ${outcome.status}`
          : outcome.error,
        last_response_excerpt: outcome.ok ? outcome.excerpt : null,
        next_attempt_at: next,
      });
      metrics.webhookDeliveries.labels(next ? 'retrying' : 'failed').inc();
      if (delay !== null) await schedule(claimed.id, delay);
      else
        logger.info({ delivery_id: claimed.id, webhook_id: webhook.id }, 'webhook delivery failed for good');
    },

    schedule,
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

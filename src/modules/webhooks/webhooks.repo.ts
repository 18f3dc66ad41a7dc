// Webhooks and their deliveries in the store.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { DeliveryStatus, Webhook, WebhookDelivery } from '../../store/tables.ts';

export async function insertWebhook(
  db: Db,
  row: Omit<Webhook, 'previous_secret_sealed' | 'previous_secret_expires_at'>,
) {
  return db
    .insertInto('webhooks')
    .values({ ...row, previous_secret_sealed: null, previous_secret_expires_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findWebhook(db: Db, orgId: string, id: string) {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findWebhookById(db: Db, id: string) {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export function projectWebhooksQuery(db: Db, projectId: string) {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

export async function updateWebhook(db: Db, id: string, changes: Partial<Omit<Webhook, 'id'>>) {
  return db
    .updateTable('webhooks')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteWebhook(db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

/** The active webhooks of a project that subscribe to `type` (or to everything). */
export function subscribedWebhooks(db: Db, projectId: string, type: string) {
  return db
    .selectFrom('webhooks')
    .select(['id'])
    .where('project_id', '=', projectId)
    .where('active', '=', true)
    .where(sql<boolean>`events && ${sql.val([type, '*'])}::text[]`)
    .execute();
}

export async function insertDeliveries(
  db: Db,
  rows: Omit<
    WebhookDelivery,
    | 'last_status_code'
    | 'last_error'
    | 'last_response_excerpt'
    | 'last_attempt_at'
    | 'locked_until'
    | 'attempts'
  >[],
) {
  if (rows.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      rows.map((row) => ({
        ...row,
        attempts: 0,
        last_status_code: null,
        last_error: null,
        last_response_excerpt: null,
        last_attempt_at: null,
        locked_until: null,
      })),
    )
    .execute();
}

export function deliveriesQuery(db: Db, webhookId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

export function findDelivery(db: Db, webhookId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Takes a pending delivery for one attempt, until `until`: a second job for the same attempt (a
 * sweep's re-send) finds it taken and sends nothing.
 */
export function claimDelivery(db: Db, id: string, now: Date, until: Date) {
  return db
    .updateTable('webhook_deliveries')
    .set({ locked_until: until })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

export async function recordAttempt(
  db: Db,
  id: string,
  outcome: {
    status: DeliveryStatus;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    last_response_excerpt: string | null;
    last_attempt_at: Date;
    next_attempt_at: Date | null;
  },
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ ...outcome, locked_until: null })
    .where('id', '=', id)
    .execute();
}

/** A webhook that stopped (410, or made inactive) stops its retries: what was pending fails. */
export async function failPendingDeliveries(db: Db, webhookId: string, reason: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: reason, next_attempt_at: null })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}

/** Pending deliveries whose job should have run a while ago and did not (lost between commit and send). */
export function overdueDeliveries(db: Db, before: Date, limit: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<', before)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', before)]))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
}

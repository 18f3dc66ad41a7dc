// Fans the event outbox out: each undispatched event becomes one delivery per active webhook of its
// project that subscribes to its type, and is marked dispatched in the same transaction. The jobs
// that send the deliveries go out after the commit; one lost in between (a crash) is found by the
// sweep as an overdue pending delivery. Concurrent passes (several workers) skip each other's rows.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/db.ts';
import type { DeliveryWorker } from './webhook-delivery.ts';
import { insertDeliveries, overdueDeliveries, subscribedWebhooks } from './webhooks.repo.ts';

const BATCH = 200;
/** A pending delivery whose time passed this long ago has lost its job. */
const OVERDUE_MS = 60_000;

export function createFanout(deps: { db: Db; worker: DeliveryWorker; now: () => Date }) {
  const { db, worker, now } = deps;

  async function batch(): Promise<number> {
    const created: string[] = [];
    const events = await db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('events')
        .selectAll()
        .where('dispatched_at', 'is', null)
        .orderBy('seq')
        .limit(BATCH)
        .forUpdate()
        .skipLocked()
        .execute();
      for (const event of rows) {
        const hooks = event.project_id ? await subscribedWebhooks(trx, event.project_id, event.type) : [];
        const deliveries = hooks.map((hook) => ({
          id: randomUUID(),
          webhook_id: hook.id,
          event_id: event.id,
          event_type: event.type,
          status: 'pending' as const,
          next_attempt_at: now(),
          created_at: now(),
        }));
        await insertDeliveries(trx, deliveries);
        created.push(...deliveries.map((d) => d.id));
      }
      if (rows.length > 0)
        await trx
          .updateTable('events')
          .set({ dispatched_at: now() })
          .where(
            'id',
            'in',
            rows.map((row) => row.id),
          )
          .execute();
      return rows.length;
    });
    for (const id of created) await worker.schedule(id, 0);
    return events;
  }

  return {
    /** Dispatches every undispatched event; returns how many. */
    async dispatch(): Promise<{ events: number }> {
      let total = 0;
      for (;;) {
        const done = await batch();
        total += done;
        if (done < BATCH) return { events: total };
      }
    },

    /** The minute's safety net: the outbox, then deliveries whose job was lost. */
    async sweep(): Promise<{ events: number; resent: number }> {
      const { events } = await this.dispatch();
      const overdue = await overdueDeliveries(db, new Date(now().getTime() - OVERDUE_MS), 1000);
      for (const { id } of overdue) await worker.schedule(id, 0);
      return { events, resent: overdue.length };
    },
  };
}

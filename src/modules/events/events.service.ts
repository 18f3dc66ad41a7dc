// The event outbox (docs/architecture.md): a service records a domain event with `emit(trx, event)` inside the
// transaction of the change it tells of, so a rolled-back change leaves no event and a committed one
// always has its row, whatever happens to the process after the commit. Readers (the webhook
// fan-out) take undispatched rows from the table; the nudge below only makes them look sooner.
import { randomUUID } from 'node:crypto';
import type { EventType } from '../../core/vocabulary.ts';
import type { Db } from '../../store/db.ts';

/** The queue whose pass fans the outbox out (worked by the webhooks module). */
export const EVENT_DISPATCH_QUEUE = 'event_dispatch';

/** How long after an emit the fan-out is nudged: long enough for the emitting transaction to commit. */
const NUDGE_DELAY_MS = 150;

export interface DomainEventInput {
  type: EventType;
  orgId: string;
  projectId: string | null;
  /** The subject resource as the API returns it (a run, a drift report, …); never a secret. */
  data: Record<string, unknown>;
}

/**
 * A domain event that follows from an audited change: when an entry with `action` is recorded (with
 * outcome success), the event `type` is emitted in the same transaction, its data read there too.
 * Modules declare these in their registration (`eventSources`), so the services that already audit
 * every change in its transaction need no second call to stay in step.
 */
export interface EventSource {
  action: string;
  type: EventType;
  /** The subject resource as the API returns it, read in the change's transaction. */
  data(executor: Db, targetId: string): Promise<Record<string, unknown> | undefined>;
}

/** What the audit service tells the outbox about an entry it just wrote. */
export interface AuditedChange {
  org_id: string | null;
  project_id: string | null;
  action: string;
  target_id: string | null;
  outcome: string;
}

export type EventsService = ReturnType<typeof createEventsService>;

export function createEventsService(deps: {
  now: () => Date;
  /** Asks a worker for a fan-out pass; absent in a process without a queue (the sweep catches up). */
  nudge?: () => Promise<void>;
  onNudgeError?: (error: unknown) => void;
}) {
  const { now, nudge } = deps;
  let pending: NodeJS.Timeout | undefined;

  // Nudges are coalesced: a burst of events in one request asks for one pass. A pass that starts
  // before the emitting transaction commits misses nothing for good: the row waits for the next
  // pass or the minute's sweep.
  function schedule(): void {
    if (!nudge || pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      nudge().catch((error) => deps.onNudgeError?.(error));
    }, NUDGE_DELAY_MS);
    pending.unref();
  }

  const sources = new Map<string, EventSource>();

  async function emit(executor: Db, event: DomainEventInput): Promise<string> {
    const id = randomUUID();
    await executor
      .insertInto('events')
      .values({
        id,
        org_id: event.orgId,
        project_id: event.projectId,
        type: event.type,
        data: JSON.stringify(event.data),
        created_at: now(),
      })
      .execute();
    schedule();
    return id;
  }

  return {
    emit,

    /** Registers what a module's audited changes emit (the composition root, once per module). */
    addSource(source: EventSource): void {
      if (sources.has(source.action))
        throw new Error(`Two event sources for the audit action ${source.action}`);
      sources.set(source.action, source);
    },

    /** Called by the audit service after each entry, in the same transaction. */
    async fromAudit(executor: Db, change: AuditedChange): Promise<void> {
      const source = sources.get(change.action);
      if (!source || change.outcome !== 'success' || !change.org_id || !change.target_id) return;
      const data = await source.data(executor, change.target_id);
      if (!data) return;
      await emit(executor, { type: source.type, orgId: change.org_id, projectId: change.project_id, data });
    },

    /** Stops a pending nudge (the process is closing). */
    close(): void {
      clearTimeout(pending);
      pending = undefined;
    },
  };
}

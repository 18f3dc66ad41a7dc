// Writing and reading the audit trail. `record` is called by every service inside the transaction of
// the change it describes, so a change and its audit entry commit or vanish together.
//
// Inside a request (`collect`, opened by the audit module's hooks) the entry is written to wait for
// its chain (./audit-append.ts) and the request, once its transaction has committed, waits for the
// pass that chains it (`settle`) before it answers: an entry is listed with its seq and hash by the
// time its request has answered (docs/contract.md §11.2). Elsewhere (jobs, commands), where nothing
// waits after the commit, the entry is chained in its own transaction under the chain's lock.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Actor, AnonymousActor, SystemActor } from '../../core/actors.ts';
import type { Db } from '../../store/db.ts';
import type { PageRequest } from '../../store/paging.ts';
import { paginate } from '../../store/paging.ts';
import type { ActorType, AuditOutcome } from '../../store/tables.ts';
import type { AuditedChange } from '../events/events.service.ts';
import { type AuditFilter, auditQuery, chainPage, takeInWaiting } from './audit.repo.ts';
import { appendInTransaction, insertPendingAudit } from './audit-append.ts';
import { firstBroken, GENESIS } from './audit-chain.ts';
import { createChainPasses } from './chain-passes.ts';

const VERIFY_BATCH = 1000;

export interface AuditEvent {
  action: string;
  target?: { type: string; id: string; label?: string | null };
  projectId?: string | null;
  outcome?: AuditOutcome;
  details?: Record<string, unknown>;
  /** For anonymous actors (a failed login): the organization the event belongs to, when known. */
  orgId?: string | null;
}

function actorTypeOf(actor: Actor | AnonymousActor | SystemActor): ActorType {
  if (actor.principal) return actor.principal.via === 'api_key' ? 'api_key' : 'user';
  return 'system' in actor ? 'system' : 'anonymous';
}

export type AuditService = ReturnType<typeof createAuditService>;

export function createAuditService({
  db,
  now,
  onRecord,
}: {
  db: Db;
  now: () => Date;
  /** The event outbox: an audited change may be a domain event too, emitted in the same transaction. */
  onRecord?: (executor: Db, change: AuditedChange) => Promise<void>;
}) {
  /** The organizations whose entries the current request wrote to wait for their chain. */
  const written = new AsyncLocalStorage<Set<string | null>>();
  const passes = createChainPasses(db);
  return {
    /** Runs `next` (the rest of a request) collecting the organizations its entries wait in. */
    collect(into: Set<string | null>, next: () => void): void {
      written.run(into, next);
    },

    /** Resolves once the entries of these organizations committed so far are chained. */
    settle: passes.settle,

    async record(
      executor: Db,
      actor: Actor | AnonymousActor | SystemActor,
      event: AuditEvent,
    ): Promise<void> {
      const principal = actor.principal;
      const system = 'system' in actor ? actor.system : null;
      const record = {
        org_id: principal?.orgId ?? event.orgId ?? null,
        actor_type: actorTypeOf(actor),
        actor_id: principal?.userId ?? null,
        actor_label: principal?.email ?? system,
        api_key_id: principal?.apiKeyId ?? null,
        action: event.action,
        target_type: event.target?.type ?? null,
        target_id: event.target?.id ?? null,
        target_label: event.target?.label ?? null,
        project_id: event.projectId ?? null,
        ip: actor.ip,
        user_agent: actor.userAgent,
        outcome: event.outcome ?? 'success',
        details: event.details ?? {},
      };
      const collecting = written.getStore();
      if (collecting && executor.isTransaction) {
        await insertPendingAudit(executor, record, now());
        collecting.add(record.org_id);
        await onRecord?.(executor, record);
        return;
      }
      const write = async (trx: Db) => {
        await appendInTransaction(trx, record, now());
        await onRecord?.(trx, record);
      };
      // The chain's lock lasts until the commit: a caller outside a transaction gets one of its own.
      if (executor.isTransaction) await write(executor);
      else await executor.transaction().execute(write);
    },

    /** Walks the organization's chain (docs/contract.md §11.2): whole, or where it first breaks. */
    async verify(actor: Actor) {
      const orgId = actor.principal.orgId;
      let previous = { seq: 0, hash: GENESIS };
      let entries = 0;
      for (;;) {
        const page = await chainPage(db, orgId, previous.seq, VERIFY_BATCH);
        const { broken, last } = firstBroken(
          page.map((row) => ({ ...row, seq: Number(row.seq) })),
          previous,
        );
        if (broken !== null)
          return { ok: false, entries: entries + (last.seq - previous.seq), first_broken_seq: broken };
        entries += page.length;
        previous = last;
        if (page.length < VERIFY_BATCH) return { ok: true, entries, first_broken_seq: null };
      }
    },

    async list(actor: Actor, filter: AuditFilter, page: PageRequest) {
      await takeInWaiting(db, actor.principal.orgId);
      return paginate(auditQuery(db, actor.principal.orgId, filter), page);
    },
  };
}

// The audit log: written in the transaction of the change it records, read with filters.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { AuditEntry, Database } from '../../store/tables.ts';
import { entryHash, GENESIS } from './audit-chain.ts';

type Executor = Kysely<Database>;

/** An entry as services describe it; the id and the time are added here. */
export type AuditRecord = Omit<
  AuditEntry,
  'id' | 'created_at' | 'details' | 'seq' | 'position' | 'prev_hash' | 'hash'
> & {
  details: Record<string, unknown>;
};

/**
 * Appends the entry to its organization's chain. Must run in a transaction: the advisory lock (per
 * organization, until the commit) makes concurrent writers of one organization take turns, so two
 * entries never claim the same place; the unique (org_id, seq) index would refuse it anyway.
 */
export async function insertAudit(db: Executor, record: AuditRecord, now: Date): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`audit:${record.org_id ?? 'none'}`}, 0))`.execute(
    db,
  );
  let head = db.selectFrom('audit_log').select(['seq', 'hash']).orderBy('seq', 'desc').limit(1);
  head = record.org_id === null ? head.where('org_id', 'is', null) : head.where('org_id', '=', record.org_id);
  const last = await head.executeTakeFirst();
  const seq = last ? Number(last.seq) + 1 : 1;
  const prev_hash = last?.hash ?? GENESIS;
  // Hashed as it will read back from the store (dates as text, undefined dropped).
  const details = JSON.parse(JSON.stringify(record.details)) as Record<string, unknown>;
  const hash = entryHash({ ...record, details, seq, prev_hash, created_at: now });
  await db
    .insertInto('audit_log')
    .values({
      ...record,
      id: randomUUID(),
      details: JSON.stringify(details),
      created_at: now,
      seq,
      prev_hash,
      hash,
    })
    .execute();
}

/** One organization's entries in chain order, from after `afterSeq`, for verification and export. */
export function chainPage(db: Executor, orgId: string, afterSeq: number, limit: number) {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('seq', '>', String(afterSeq))
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export interface AuditFilter {
  project_id?: string;
  actor_id?: string;
  action?: string;
  from?: Date;
  to?: Date;
}

export function auditQuery(db: Executor, orgId: string, filter: AuditFilter) {
  let query = db
    .selectFrom('audit_log')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc');
  if (filter.project_id) query = query.where('project_id', '=', filter.project_id);
  if (filter.actor_id) query = query.where('actor_id', '=', filter.actor_id);
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.from) query = query.where('created_at', '>=', filter.from);
  if (filter.to) query = query.where('created_at', '<', filter.to);
  return query;
}

/** Purging a user keeps their audit entries but replaces the label that named them. */
export async function redactAuditLabels(db: Executor, userId: string, label: string): Promise<void> {
  // The network identifiers of their requests are personal data too (docs/contract.md §11.2); none of these
  // fields is in the hashed form, so the chain stays valid.
  await db
    .updateTable('audit_log')
    .set({ actor_label: label, ip: null, user_agent: null })
    .where('actor_id', '=', userId)
    .execute();
  await db
    .updateTable('audit_log')
    .set({ target_label: label })
    .where('target_type', '=', 'user')
    .where('target_id', '=', userId)
    .execute();
}

// The audit log: written in the transaction of the change it records, read with filters.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.ts';
import { hasPending, takeInPending } from './audit-append.ts';

type Executor = Kysely<Database>;

/**
 * One organization's entries in chain order, from after `afterSeq`, for verification and export. The
 * entries committed and still waiting for their pass (./audit-append.ts) are chained first, so a
 * reader sees every entry the store holds, also those of a process that died before its pass.
 */
export async function chainPage(db: Executor, orgId: string, afterSeq: number, limit: number) {
  await takeInWaiting(db, orgId);
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('seq', '>', String(afterSeq))
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** Chains the organization's waiting entries, if any (one probe when there are none). */
export async function takeInWaiting(db: Executor, orgId: string): Promise<void> {
  if (await hasPending(db, orgId)) await takeInPending(db, orgId);
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
  // Entries still waiting for their chain are redacted as well (a pass moves them as stored).
  for (const table of ['audit_log', 'audit_pending'] as const) {
    await db
      .updateTable(table)
      .set({ actor_label: label, ip: null, user_agent: null })
      .where('actor_id', '=', userId)
      .execute();
    await db
      .updateTable(table)
      .set({ target_label: label })
      .where('target_type', '=', 'user')
      .where('target_id', '=', userId)
      .execute();
  }
}

// The audit log: written in the transaction of the change it records, read with filters.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuditEntry, Database } from '../../store/tables.ts';

type Executor = Kysely<Database>;

/** An entry as services describe it; the id and the time are added here. */
export type AuditRecord = Omit<AuditEntry, 'id' | 'created_at' | 'details' | 'seq'> & {
  details: Record<string, unknown>;
};

export async function insertAudit(db: Executor, record: AuditRecord, now: Date): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ ...record, id: randomUUID(), details: JSON.stringify(record.details), created_at: now })
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
  await db.updateTable('audit_log').set({ actor_label: label }).where('actor_id', '=', userId).execute();
  await db
    .updateTable('audit_log')
    .set({ target_label: label })
    .where('target_type', '=', 'user')
    .where('target_id', '=', userId)
    .execute();
}

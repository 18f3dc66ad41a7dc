import type { Db } from '../../store/db.ts';
import type { AuditSink } from '../../store/tables.ts';

export function findSink(db: Db, orgId: string, id: string) {
  return db
    .selectFrom('audit_sinks')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function orgSinksQuery(db: Db, orgId: string) {
  return db
    .selectFrom('audit_sinks')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

/** The newest seq of the organization's chain (0 before its first entry): the lag's reference. */
export async function headSeq(db: Db, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('audit_log')
    .select('seq')
    .where('org_id', '=', orgId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.seq) : 0;
}

/** Active sinks whose back-off is over: the candidates of an export pass. */
export function dueSinks(db: Db, now: Date) {
  return db
    .selectFrom('audit_sinks')
    .select('id')
    .where('active', '=', true)
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
    .execute();
}

/** Takes the sink for one exporter until `until` (batches of one sink never interleave). */
export function claimSink(db: Db, id: string, now: Date, until: Date) {
  return db
    .updateTable('audit_sinks')
    .set({ locked_until: until })
    .where('id', '=', id)
    .where('active', '=', true)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

export async function updateSink(
  db: Db,
  id: string,
  changes: Partial<Omit<AuditSink, 'id' | 'last_exported_seq'>> & { last_exported_seq?: number },
) {
  return db
    .updateTable('audit_sinks')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

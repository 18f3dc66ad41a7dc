// How entries join their organization's hash chain (./audit-chain.ts). A change's transaction
// writes its entry to audit_pending, without a lock (insertPendingAudit); after the commit, a pass
// takes the organization's chain lock, reads the chain's head and the waiting entries in the order
// they were written, hashes them one after the other and moves them to audit_log in one statement
// (takeInPending). One pass chains every entry committed before it started, so concurrent writers
// of one organization share passes instead of holding the lock across their commits, one at a time.
//
// The lock is a transaction-scoped advisory lock per organization: passes of several processes
// take turns, and a writer that chains its entry inside its own transaction (appendInTransaction,
// for work outside a request) takes the waiting entries in first, so the chain never forks.
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

/** Entries one pass moves in one statement; a pass with more waiting goes on with the next batch. */
const PASS_BATCH = 1000;

const orgFilter = (orgId: string | null) =>
  orgId === null ? sql<boolean>`org_id is null` : sql<boolean>`org_id = ${orgId}::uuid`;

/** The organization's chain lock, until the end of the transaction `trx`. */
async function lockChain(trx: Executor, orgId: string | null): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`audit:${orgId ?? 'none'}`}, 0))`.execute(trx);
}

async function chainHead(trx: Executor, orgId: string | null): Promise<{ seq: number; hash: string }> {
  const head = await sql<{ seq: string; hash: string }>`
    select seq, hash from audit_log where ${orgFilter(orgId)} order by seq desc limit 1`.execute(trx);
  const last = head.rows[0];
  return last ? { seq: Number(last.seq), hash: last.hash } : { seq: 0, hash: GENESIS };
}

/** The entry's row for audit_pending (the details as they will read back: dates as text). */
function pendingRow(record: AuditRecord, now: Date) {
  const details = JSON.parse(JSON.stringify(record.details)) as Record<string, unknown>;
  return { ...record, id: randomUUID(), details, created_at: now };
}

/** Writes the entry in the caller's transaction, for a pass to chain after the commit. No lock. */
export async function insertPendingAudit(db: Executor, record: AuditRecord, now: Date): Promise<void> {
  const row = pendingRow(record, now);
  await db
    .insertInto('audit_pending')
    .values({ ...row, details: JSON.stringify(row.details) })
    .execute();
}

/** Whether entries of the organization wait for a pass (one indexed probe, no lock). */
export async function hasPending(db: Executor, orgId: string | null): Promise<boolean> {
  const found = await sql`select 1 from audit_pending where ${orgFilter(orgId)} limit 1`.execute(db);
  return found.rows.length > 0;
}

/** The newest entry's seq or hash of the organization's chain, as a column of another query. */
const headColumn = (orgId: string | null, column: 'seq' | 'hash') =>
  sql<
    string | null
  >`(select ${sql.ref(column)} from audit_log where ${orgFilter(orgId)} order by seq desc limit 1)`;

/**
 * Under the chain lock (held by `trx` until its end, taken by the caller): chains the waiting
 * entries of the organization that were committed when the pass read them, at most one batch.
 * Returns how many it took in and, when it took some, the chain's head after them.
 */
async function takeInBatch(trx: Executor, orgId: string | null) {
  // The waiting entries and the chain's head in one read.
  const waiting = await trx
    .selectFrom('audit_pending')
    .select([
      'id',
      'org_id',
      'created_at',
      'actor_type',
      'actor_id',
      'api_key_id',
      'action',
      'target_type',
      'target_id',
      'project_id',
      'outcome',
      'details',
      headColumn(orgId, 'seq').as('head_seq'),
      headColumn(orgId, 'hash').as('head_hash'),
    ])
    .where(orgFilter(orgId))
    .orderBy('position')
    .limit(PASS_BATCH)
    .execute();
  const first = waiting[0];
  if (!first) return { taken: 0, head: null };
  let head =
    first.head_seq === null || first.head_hash === null
      ? { seq: 0, hash: GENESIS }
      : { seq: Number(first.head_seq), hash: first.head_hash };
  const links: { id: string; seq: number; prev_hash: string; hash: string }[] = [];
  for (const { head_seq: _, head_hash: __, ...entry } of waiting) {
    // Hashed from the stored row, as verification will read it back from audit_log.
    const seq = head.seq + 1;
    const hash = entryHash({ ...entry, seq, prev_hash: head.hash });
    links.push({ id: entry.id, seq, prev_hash: head.hash, hash });
    head = { seq, hash };
  }
  // The row moves as stored (a purge's redaction between the read and here is kept); only its
  // place in the chain comes from this pass.
  await sql`
    with links as (
      select * from jsonb_to_recordset(${JSON.stringify(links)}::jsonb)
        as l(id uuid, seq bigint, prev_hash text, hash text)
    ), moved as (
      delete from audit_pending p using links l where p.id = l.id returning p.*
    )
    insert into audit_log (id, org_id, actor_type, actor_id, actor_label, api_key_id, action, target_type,
      target_id, target_label, project_id, ip, user_agent, outcome, details, created_at, seq, prev_hash, hash)
    select m.id, m.org_id, m.actor_type, m.actor_id, m.actor_label, m.api_key_id, m.action, m.target_type,
      m.target_id, m.target_label, m.project_id, m.ip, m.user_agent, m.outcome, m.details, m.created_at,
      l.seq, l.prev_hash, l.hash
    from moved m join links l on l.id = m.id
    order by l.seq`.execute(trx);
  return { taken: waiting.length, head };
}

/**
 * A pass: every entry of the organization committed to audit_pending before it began joins the
 * chain, one transaction per batch (inside the caller's, when given one: the lock then lasts until
 * it ends).
 */
export async function takeInPending(db: Executor, orgId: string | null): Promise<void> {
  const batch = async (trx: Executor) => {
    await lockChain(trx, orgId);
    return takeInBatch(trx, orgId);
  };
  for (;;) {
    const { taken } = db.isTransaction ? await batch(db) : await db.transaction().execute(batch);
    if (taken < PASS_BATCH) return;
  }
}

/**
 * Chains the entry inside the caller's transaction `trx`, for writers no pass follows (jobs, the
 * command line): the chain lock is held until `trx` ends, as every such writer of the organization
 * waits for it. The waiting entries are taken in first, so they keep their place before this one.
 */
export async function appendInTransaction(trx: Executor, record: AuditRecord, now: Date): Promise<void> {
  await lockChain(trx, record.org_id);
  let { taken, head } = await takeInBatch(trx, record.org_id);
  while (taken === PASS_BATCH) ({ taken, head } = await takeInBatch(trx, record.org_id));
  head ??= await chainHead(trx, record.org_id);
  const row = pendingRow(record, now);
  const seq = head.seq + 1;
  const hash = entryHash({ ...row, seq, prev_hash: head.hash });
  await trx
    .insertInto('audit_log')
    .values({ ...row, details: JSON.stringify(row.details), seq, prev_hash: head.hash, hash })
    .execute();
}

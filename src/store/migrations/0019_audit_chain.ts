// The audit log becomes a hash chain per organization (src/modules/audit/audit-chain.ts): `seq`
// counts each organization's entries from 1 without gaps, `prev_hash` and `hash` link them. The
// store-wide order of 0013 stays as `position` (entries of one transaction share their time). The
// entries already written are chained here, in the order they were listed until now.
//
// The hash is computed by a frozen copy of the chain's rules as they stood when this migration was
// written: a migration must give the same result whatever the live code becomes (a later change
// to the audit module's hashing would be a new migration, re-chaining with its own rules).
import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

const GENESIS = '0'.repeat(64);

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/** An entry's hash: its fields but the redactable labels, as canonical JSON, under SHA-256. */
function entryHash(entry: Omit<Row, 'id'> & { seq: number; prev_hash: string }): string {
  const { created_at, ...fields } = entry;
  const hashed = {
    seq: fields.seq,
    org_id: fields.org_id,
    at: created_at.toISOString(),
    actor_type: fields.actor_type,
    actor_id: fields.actor_id,
    api_key_id: fields.api_key_id,
    action: fields.action,
    target_type: fields.target_type,
    target_id: fields.target_id,
    project_id: fields.project_id,
    outcome: fields.outcome,
    details: fields.details,
    prev_hash: fields.prev_hash,
  };
  return createHash('sha256').update(canonicalJson(hashed)).digest('hex');
}

interface Row {
  id: string;
  org_id: string | null;
  created_at: Date;
  actor_type: string;
  actor_id: string | null;
  api_key_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  project_id: string | null;
  outcome: string;
  details: unknown;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').renameColumn('seq', 'position').execute();
  await db.schema
    .alterTable('audit_log')
    .addColumn('seq', 'bigint')
    .addColumn('prev_hash', 'text')
    .addColumn('hash', 'text')
    .execute();
  const rows = (
    await sql<Row>`select id, org_id, created_at, actor_type, actor_id, api_key_id, action, target_type,
      target_id, project_id, outcome, details from audit_log order by org_id nulls first, created_at, position`.execute(
      db,
    )
  ).rows;
  const heads = new Map<string | null, { seq: number; hash: string }>();
  for (const row of rows) {
    const head = heads.get(row.org_id) ?? { seq: 0, hash: GENESIS };
    const seq = head.seq + 1;
    const details = typeof row.details === 'string' ? JSON.parse(row.details) : row.details;
    const hash = entryHash({ ...row, details, seq, prev_hash: head.hash });
    await sql`update audit_log set seq = ${seq}, prev_hash = ${head.hash}, hash = ${hash} where id = ${row.id}`.execute(
      db,
    );
    heads.set(row.org_id, { seq, hash });
  }
  await sql`alter table audit_log alter column seq set not null, alter column prev_hash set not null,
    alter column hash set not null`.execute(db);
  // Two writers of one organization can never take the same place in its chain.
  await db.schema
    .createIndex('audit_log_org_seq')
    .on('audit_log')
    .columns(['org_id', 'seq'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_log_org_seq').execute();
  await db.schema
    .alterTable('audit_log')
    .dropColumn('seq')
    .dropColumn('prev_hash')
    .dropColumn('hash')
    .execute();
  await db.schema.alterTable('audit_log').renameColumn('position', 'seq').execute();
}

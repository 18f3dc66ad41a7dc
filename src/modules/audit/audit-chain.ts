// The audit log as a hash chain per organization (docs/contract.md §11.2): entry n carries `prev_hash` = the hash
// of entry n-1 and `hash` = SHA-256 over its canonical JSON, so changing, removing or inserting an
// entry breaks every link after it. The fields a purge redacts (actor_label, target_label, ip,
// user_agent) are left out of the hashed form: removing personal data keeps the chain valid, while
// `actor_id` (who acted) stays covered. Canonical JSON: object keys sorted at every depth, no
// whitespace, numbers and strings as JSON.stringify writes them (the RFC 8785 forms for the values
// this log holds).
import { createHash } from 'node:crypto';

/** The hash before an organization's first entry. */
export const GENESIS = '0'.repeat(64);

export interface ChainedFields {
  seq: number;
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
  prev_hash: string;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export function entryHash(entry: ChainedFields): string {
  const hashed = {
    seq: entry.seq,
    org_id: entry.org_id,
    at: entry.created_at.toISOString(),
    actor_type: entry.actor_type,
    actor_id: entry.actor_id,
    api_key_id: entry.api_key_id,
    action: entry.action,
    target_type: entry.target_type,
    target_id: entry.target_id,
    project_id: entry.project_id,
    outcome: entry.outcome,
    details: entry.details,
    prev_hash: entry.prev_hash,
  };
  return createHash('sha256').update(canonicalJson(hashed)).digest('hex');
}

/** The first entry, in seq order, whose link or hash does not hold (null when the chain is whole). */
export function firstBroken(
  entries: Iterable<ChainedFields & { hash: string }>,
  previous: { seq: number; hash: string } = { seq: 0, hash: GENESIS },
): { broken: number | null; last: { seq: number; hash: string } } {
  let last = previous;
  for (const entry of entries) {
    // A gap, a foreign link or a changed entry: the chain breaks at the place after the last good one.
    if (entry.seq !== last.seq + 1 || entry.prev_hash !== last.hash || entryHash(entry) !== entry.hash)
      return { broken: last.seq + 1, last };
    last = { seq: entry.seq, hash: entry.hash };
  }
  return { broken: null, last };
}

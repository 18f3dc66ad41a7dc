// The audit trail (src/modules/audit).
import type { ColumnType, Generated } from 'kysely';
import type { ActorType, AuditOutcome } from '../../core/vocabulary.ts';
import type { Json, Timestamp } from './columns.ts';

export interface AuditLogTable {
  id: string;
  org_id: string | null;
  actor_type: ActorType;
  actor_id: string | null;
  actor_label: string | null;
  api_key_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  project_id: string | null;
  ip: string | null;
  user_agent: string | null;
  outcome: AuditOutcome;
  details: Json<Record<string, unknown>>;
  created_at: Timestamp;
  /** The order the store took the entries in: ties of `created_at` (one transaction) by it. */
  position: Generated<string>;
  /** The entry's place in its organization's chain, from 1 without gaps. */
  seq: ColumnType<string, number, number>;
  /** The hash of the entry before (64 zeros for the first). */
  prev_hash: string;
  /** SHA-256 of the entry's canonical form (src/modules/audit/audit-chain.ts). */
  hash: string;
}

/**
 * An entry written by its change's transaction and waiting for its organization's chain to take it
 * in (src/modules/audit/audit-append.ts): audit_log's fields but its place in the chain.
 */
export type AuditPendingTable = Omit<AuditLogTable, 'seq' | 'prev_hash' | 'hash'>;

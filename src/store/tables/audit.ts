// The audit trail (src/modules/audit).
import type { Generated } from 'kysely';
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
  seq: Generated<string>;
}

// Anonymization configs (src/modules/anonymize).
import type { Generated } from 'kysely';
import type { ConfigRule } from '../../engine/anonymize/config-check.ts';
import type { PropagatedColumn } from '../../engine/anonymize/propagation.ts';
import type { Json, Timestamp } from './columns.ts';

export interface AnonymizeConfigsTable {
  id: string;
  org_id: string;
  project_id: string;
  connection_id: string;
  name: string;
  rules: Json<ConfigRule[]>;
  propagated: Json<PropagatedColumn[]>;
  strict: Generated<boolean>;
  /** The key of the deterministic transformers, sealed by the secret box; never returned. */
  key_sealed: string;
  /** A keyed fingerprint of the key (approvals bind it); reveals nothing of the key. */
  key_id: string;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

import type { DriftSeverity, DriftStatus } from '../../core/vocabulary.ts';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';

/** none: nothing to tell (cosmetic only); pending: the e-mail is still to be sent; sent. */
export type DriftAlertState = 'none' | 'pending' | 'sent';

export interface DriftReportsTable {
  id: string;
  org_id: string;
  project_id: string;
  connection_id: string;
  baseline_snapshot_id: string;
  current_snapshot_id: string;
  current_schema_hash: string;
  status: DriftStatus;
  severity: DriftSeverity;
  /** `{critical, moderate, minor}` (src/engine/schema/diff.ts DiffSummary). */
  summary: Json<{ critical: number; moderate: number; minor: number }>;
  /** The SchemaDiff of src/engine/schema/diff.ts. */
  diff: Json<unknown>;
  alert_state: DriftAlertState;
  alert_sent_at: NullableTimestamp;
  created_at: Timestamp;
  acknowledged_at: NullableTimestamp;
  acknowledged_by: string | null;
  comment: string | null;
}

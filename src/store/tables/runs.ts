// Runs, the one model of every long operation (src/modules/runs).
import type { ColumnType, Generated } from 'kysely';
import type { RunKind, RunStatus } from '../../core/vocabulary.ts';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';
import type { Subject } from './subjects.ts';

export interface RunsTable {
  id: string;
  org_id: string;
  project_id: string;
  kind: RunKind;
  subject_id: string | null;
  /** What the run is about (null for drift checks and for runs recorded before subjects were). */
  subject: Json<Subject> | null;
  status: RunStatus;
  approval_id: string | null;
  progress_done: ColumnType<string, number | undefined, number>;
  progress_total: ColumnType<string | null, number | null | undefined, number | null>;
  progress_unit: string;
  /** What the operation was asked to do (e.g. expected_rows, force); read by its handler. */
  params: Json<Record<string, unknown>>;
  result: Json<Record<string, unknown>> | null;
  error: string | null;
  created_by: string | null;
  cancel_requested: Generated<boolean>;
  worker_id: string | null;
  heartbeat_at: NullableTimestamp;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

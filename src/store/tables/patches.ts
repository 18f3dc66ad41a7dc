// Data patches (src/modules/patches).
import type { Generated } from 'kysely';
import type { PatchStatus } from '../../core/vocabulary.ts';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';

/**
 * A parsed statement of a patch (src/engine/patch/parse-patch.ts) with its rollback key
 * (src/engine/patch/rollback-key.ts), decided when the patch is saved and again at execute.
 */
export interface StoredPatchStatement {
  index: number;
  kind: 'update' | 'delete' | 'insert';
  table: string;
  reversible: boolean;
  /** Why a rollback cannot restore what the statement changes; null when it can. */
  irreversible_reason: string | null;
  /** The columns that find the statement's rows again; null when it is irreversible. */
  key: string[] | null;
  /** The table's writable columns when the patch was executed: what its images hold. */
  columns?: string[];
  sql: string;
  has_where: boolean;
  target_sql: string;
  table_sql: string;
  where_sql: string | null;
  set_columns: string[];
  upsert: boolean;
}

export interface PatchesTable {
  id: string;
  org_id: string;
  project_id: string;
  connection_id: string;
  title: string;
  sql: string;
  allow_full_table: Generated<boolean>;
  status: PatchStatus;
  statements: Json<StoredPatchStatement[]>;
  executed_at: NullableTimestamp;
  execute_run_id: string | null;
  /** When the backup_retention job dropped the execution's backup tables; no rollback after it. */
  backups_dropped_at: NullableTimestamp;
  /** PostgreSQL: the id (32 bits, as `xmin` shows it) of the transaction that executed the patch. */
  execute_xid: string | null;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

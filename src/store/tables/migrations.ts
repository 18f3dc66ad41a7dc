import type { MigrationStatus } from '../../core/vocabulary.ts';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';

/** A stored migration statement: what the API shows, and what apply, lint and the drop check need. */
export interface StoredMigrationStatement {
  sql: string;
  kind: string;
  object: string;
  destructive: boolean;
  transactional: boolean;
  reversible: boolean;
  /** The engine's StatementFact[] (src/engine/migration/facts.ts); null when it did not parse. */
  facts: unknown[] | null;
  parse_error: string | null;
}

export interface MigrationsTable {
  id: string;
  org_id: string;
  project_id: string;
  source_connection_id: string;
  target_connection_id: string;
  status: MigrationStatus;
  generated_sql: string;
  statements: Json<StoredMigrationStatement[]>;
  /** LintWarning[] (src/engine/migration/lint.ts). */
  lint_warnings: Json<unknown[]>;
  /** ExecutableStatement[] or null when none can be generated. */
  rollback: Json<{ sql: string; transactional: boolean }[]> | null;
  rollback_sql: string | null;
  /** The planned Migration of the engine. */
  plan: Json<unknown>;
  source_model: Json<unknown>;
  target_model: Json<unknown>;
  scope: Json<{ include_tables?: string[]; exclude_tables?: string[] }>;
  source_schema_hash: string;
  target_schema_hash: string;
  applied_at: NullableTimestamp;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

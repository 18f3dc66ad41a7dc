import type { ColumnType } from 'kysely';
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
  /** The backup table it fills (`backup_drops`); absent on statements stored before it was kept. */
  backup?: string | null;
}

/** A stored rollback statement; the annotations are absent on rollbacks stored before they existed. */
export interface StoredRollbackStatement {
  sql: string;
  transactional: boolean;
  kind?: string;
  destructive?: boolean;
  /** The backup table it drops after the restore that read it. */
  drops_backup?: string | null;
  object?: string;
  /** What it destroys: `column people.nickname`, `table orders`… */
  destroys?: string[];
}

/** A backup table apply made in the target, as recorded. */
export interface StoredBackupTable {
  name: string;
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
  /** The engine's RollbackStatement[], or null when none can be generated. */
  rollback: Json<StoredRollbackStatement[]> | null;
  rollback_sql: string | null;
  /** The planned Migration of the engine. */
  plan: Json<unknown>;
  source_model: Json<unknown>;
  target_model: Json<unknown>;
  scope: Json<{ include_tables?: string[]; exclude_tables?: string[] }>;
  source_schema_hash: string;
  target_schema_hash: string;
  applied_at: NullableTimestamp;
  /** Which operation left the migration `failed` (null in any other status). */
  failed_operation: 'apply' | 'rollback' | null;
  /** JSON text in, the store's default ([]) when left out. */
  backup_tables: ColumnType<StoredBackupTable[], string | undefined, string>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

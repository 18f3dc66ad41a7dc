// What a migration holds besides its SQL, derived the same way for planned and edited SQL: the
// stored statements, the lint warnings, the irreversible drops, and the content hash the approval
// gate binds approvals to.
import { createHash } from 'node:crypto';
import {
  type DroppedObject,
  droppedObjects,
  type LintWarning,
  lintStatements,
  type StatementFact,
  type TableStats,
} from '../../engine/migration/index.ts';
import type { DialectName, SchemaModel } from '../../engine/schema/model.ts';
import type { StoredMigrationStatement } from '../../store/tables.ts';

/** The lock timeout apply sets (so lint does not flag exclusive locks as unbounded). */
export const APPLY_LOCK_TIMEOUT_MS = 5_000;

export interface AnnotatedStatement {
  sql: string;
  kind: string;
  object: string;
  destructive: boolean;
  transactional: boolean;
  reversible: boolean;
  facts: StatementFact[] | null;
  parse_error?: string | null;
  /** The backup table it fills (`backup_drops`). */
  backup?: string | null;
}

export function storedStatements(statements: AnnotatedStatement[]): StoredMigrationStatement[] {
  return statements.map((s) => ({
    sql: s.sql,
    kind: s.kind,
    object: s.object,
    destructive: s.destructive,
    transactional: s.transactional,
    reversible: s.reversible,
    facts: s.facts,
    parse_error: s.parse_error ?? null,
    backup: s.backup ?? null,
  }));
}

export function lintMigration(
  statements: AnnotatedStatement[],
  dialect: DialectName,
  target: SchemaModel,
  stats: TableStats[] | null,
): LintWarning[] {
  return lintStatements(statements, {
    dialect,
    target,
    stats,
    lock_timeout_ms: APPLY_LOCK_TIMEOUT_MS,
  });
}

export function irreversibleDrops(statements: StoredMigrationStatement[]): DroppedObject[] {
  return droppedObjects(statements.map((s) => ({ facts: s.facts as StatementFact[] | null })));
}

/** sha256 of the SQL that will run and the target schema hash it was compared against. */
export function contentHash(sql: string, targetSchemaHash: string): string {
  return createHash('sha256').update(sql).update('\n').update(targetSchemaHash).digest('hex');
}

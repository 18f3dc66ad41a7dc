// Schema migrations, pure: plan the operations that make a target match a source, render them
// through a dialect into annotated statements with their rollback, lint them against the target's
// schema and statistics, and analyse edited SQL the same way. No I/O: the dialects (src/dialects)
// render, parse and execute.
export { BACKUP_SCHEMA, MYSQL_BACKUP_PREFIX } from './backup.ts';
export { type DroppedObject, droppedObjects } from './drops.ts';
export { type AnalyzedSql, type AnalyzedStatement, type AnalyzeOptions, analyzeSql } from './edit.ts';
export type { ConstraintKind, StatementFact } from './facts.ts';
export { type LintInput, type LintSeverity, type LintWarning, lintStatements } from './lint.ts';
export {
  DEFAULT_LINT_THRESHOLDS,
  type LintContext,
  type LintThresholds,
  type TableStats,
} from './lint-context.ts';
export {
  assembleMigration,
  type DdlRenderer,
  type ExecutableStatement,
  joinSql,
  type Migration,
  type MigrationStatement,
  migrationRollback,
  planMigration,
  type RenderContext,
  type RenderedStatement,
  type RollbackStatement,
} from './migration.ts';
export type { MigrationOperation, TableRef } from './operations.ts';
export type { ParsedStatement, SqlParser } from './parsed.ts';
export { type OperationPlan, type PlanNote, type PlanOptions, planOperations } from './plan.ts';
export { inScope, scopeModel, type TableScope } from './scope.ts';
export {
  describeRefused,
  plannedClass,
  type RefusedStatement,
  refusedStatements,
  type StatementClass,
} from './statement-class.ts';

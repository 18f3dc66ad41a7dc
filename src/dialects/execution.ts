// Running migration statements on a target, and the table statistics lint needs: the shapes both
// dialects share. How each engine runs them differs (PostgreSQL: one transaction, with the
// statements that cannot run in one before or after it; MySQL: one by one, each committing by
// itself) and is documented in the dialect's apply file.
import type { TargetErrorCause } from './errors.ts';

export type { TableStats } from '../engine/migration/lint-context.ts';
export type { ExecutableStatement } from '../engine/migration/migration.ts';
export type { TableRef } from '../engine/migration/operations.ts';

export interface ApplyProgress {
  /** Statements that ran (successfully) so far. */
  done: number;
  total: number;
  /** The statement that just ran. */
  statement_index: number;
}

export interface ApplyOptions {
  /** How long a statement may wait for a lock (PostgreSQL lock_timeout, MySQL lock_wait_timeout). */
  lockTimeoutMs?: number;
  /** How long one statement may run (PostgreSQL statement_timeout, MariaDB max_statement_time). */
  statementTimeoutMs?: number;
  onProgress?: (progress: ApplyProgress) => void;
  /**
   * Awaited before each statement is sent, with the server session that will run it (`session`,
   * what TargetHandle.endSession takes). Engines whose statements commit one by one (MySQL:
   * capabilities.transactionalDdl false) call it, so a journal of what started can be made durable
   * before the statement can take effect. When it throws, that statement is not sent and the apply
   * rejects with its error, unchanged.
   */
  beforeStatement?: (statement: { index: number; session: string }) => Promise<void>;
  /**
   * Cancels the apply between statements (a run's cancel): no further statement starts; on
   * PostgreSQL an open transaction is rolled back. A statement already running finishes.
   */
  signal?: AbortSignal;
}

/** A finer classification of a failed statement than the connection-level TargetErrorCause. */
export type StatementErrorKind =
  | 'syntax'
  | 'undefined_object'
  | 'duplicate_object'
  | 'dependent_objects'
  | 'constraint_violation'
  | 'invalid_data'
  | 'lock_timeout'
  | 'statement_timeout'
  | 'not_in_transaction'
  | 'feature_not_supported'
  | 'permission_denied'
  | 'connection_lost'
  | 'other';

export interface StatementError {
  cause: TargetErrorCause;
  kind: StatementErrorKind;
  /** SQLSTATE (PostgreSQL) or the MySQL error symbol. */
  code: string | null;
  message: string;
}

export interface ApplyResult {
  /** Indexes of the statements that took effect, in the order they ran. */
  applied: number[];
  /** The statement that failed, or null when all ran. On PostgreSQL a failed COMMIT is told on the last statement of the transaction. */
  failed: { index: number; error: StatementError } | null;
  /** Indexes of the statements that have no effect: never run, or rolled back with the transaction. */
  not_applied: number[];
  /** PostgreSQL: statements that ran outside the transaction because they cannot run in one. */
  outside_transaction: number[];
  /** PostgreSQL: statements that ran in the transaction and were rolled back with it. */
  rolled_back: number[];
  /** Stopped by the signal: `not_applied` holds what was left. */
  cancelled: boolean;
  /** PostgreSQL: invalid indexes a failed CREATE INDEX CONCURRENTLY left behind, dropped after it. */
  dropped_invalid_indexes?: string[];
}

/** A table's triggers during work that must not fire them (a rollback restoring rows as they were). */
export type PausedTriggers =
  /** The table has no enabled user trigger. */
  | { state: 'none' }
  /** They are disabled until `resume`, which enables each in the mode it had. */
  | { state: 'paused'; resume(): Promise<void> }
  /** They could not be disabled (not the table's owner) and will fire. */
  | { state: 'firing'; reason: string }
  /** The engine cannot disable triggers (MySQL): any the table has will fire. */
  | { state: 'unsupported' };

// The run handlers of `migration_apply` and `migration_rollback` (docs/contract.md §7, §8), for the job worker.
// Apply runs the statements through the target's pool with lock and statement timeouts:
// PostgreSQL in one transaction, MySQL statement by statement (not rolled back on failure). The
// run reports what was applied and what was not; on success the target is introspected again and
// the residual diff against the source (within the compare's table scope) is recorded. Which state
// a run starts from, works under and leaves is migration-states.ts's; the backup tables left in the
// target are recorded after each run (migration-backups.ts).

import { conflict, notFound } from '../../core/errors.ts';
import type { ApplyResult } from '../../dialects/index.ts';
import type { ExecutableStatement } from '../../engine/migration/index.ts';
import { scopeModel, type TableScope } from '../../engine/migration/index.ts';
import { diffSchemas, isEmptyDiff } from '../../engine/schema/diff.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Db } from '../../store/db.ts';
import type { Connection, Run, SchemaMigration } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { RunCancelled, type RunContext, RunFailed, type RunHandlers } from '../runs/run-handler.ts';
import { backupTablesAfter } from './migration-backups.ts';
import { APPLY_LOCK_TIMEOUT_MS } from './migration-content.ts';
import { journalAt } from './migration-journal.ts';
import {
  allows,
  DONE,
  failedBy,
  type MigrationOperation,
  RUNNING,
  refusal,
  startsFrom,
} from './migration-states.ts';
import { findMigrationById, moveStatus, updateMigration } from './migrations.repo.ts';

export function createMigrationRunHandlers(deps: {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById' | 'dialectOf'>;
  now: () => Date;
  statementTimeoutMs: number;
}): Required<Pick<RunHandlers, 'migration_apply' | 'migration_rollback'>> {
  const { db, connections, now } = deps;

  async function subject(run: Run): Promise<{ migration: SchemaMigration; target: Connection }> {
    const migration = run.subject_id ? await findMigrationById(db, run.subject_id) : undefined;
    if (!migration) throw notFound('Migration');
    const target = await connections.findById(migration.target_connection_id);
    if (!target) throw notFound('Connection');
    return { migration, target };
  }

  /**
   * Applies statements, passing progress on and stopping between statements on a cancel. Where
   * each statement commits by itself, each start is journaled in the run before it is sent
   * (migration-journal.ts), for an exact report if the process dies.
   */
  async function execute(
    target: Connection,
    statements: ExecutableStatement[],
    context: RunContext,
  ): Promise<ApplyResult> {
    const journaled = !connections.dialectOf(target).capabilities.transactionalDdl;
    const controller = new AbortController();
    let cancelled = false;
    let reports = Promise.resolve();
    const result = await connections.withTarget(target, (handle) =>
      handle.apply(statements, {
        lockTimeoutMs: APPLY_LOCK_TIMEOUT_MS,
        statementTimeoutMs: deps.statementTimeoutMs,
        signal: controller.signal,
        ...(journaled && {
          beforeStatement: ({ index, session }) =>
            context.report(journalAt(statements, index, session, now())),
        }),
        onProgress: ({ done, total }) => {
          reports = reports
            .then(() => context.progress(done, total))
            .catch((error) => {
              if (error instanceof RunCancelled) {
                cancelled = true;
                controller.abort();
              }
            });
        },
      }),
    );
    await reports;
    // What ran stays on MySQL: the cancelled run still says which statements took effect.
    if (cancelled && result.failed === null && result.applied.length < statements.length)
      throw new RunCancelled(outcome(statements, result, !journaled));
    return result;
  }

  function outcome(
    statements: { sql: string; transactional: boolean }[],
    result: ApplyResult,
    transactionalDdl: boolean,
  ) {
    const applied = new Set(result.applied);
    // PostgreSQL runs these after the transaction: their outcome is told apart (docs/contract.md §8 online).
    const alone = statements.map((_, index) => index).filter((index) => !statements[index]!.transactional);
    return {
      non_transactional: transactionalDdl
        ? {
            statements: alone,
            applied: alone.filter((index) => applied.has(index)),
            not_applied: alone.filter((index) => !applied.has(index)),
            failed:
              result.failed !== null && alone.includes(result.failed.index) ? result.failed.index : null,
            dropped_invalid_indexes: result.dropped_invalid_indexes ?? [],
          }
        : null,
      applied: result.applied,
      not_applied: statements.map((_, index) => index).filter((index) => !applied.has(index)),
      failed:
        result.failed === null
          ? null
          : {
              index: result.failed.index,
              sql: statements[result.failed.index]?.sql ?? null,
              error: result.failed.error,
            },
      // Where DDL commits by itself (MySQL), what ran stays (docs/contract.md §8).
      rolled_back: result.failed !== null && transactionalDdl && !alone.includes(result.failed.index),
    };
  }

  /** The statements whose effect stays: a failure inside the transaction takes back all of its part. */
  function tookEffect(
    statements: { transactional: boolean }[],
    report: ReturnType<typeof outcome>,
  ): number[] {
    return report.rolled_back
      ? report.applied.filter((index) => !statements[index]!.transactional)
      : report.applied;
  }

  /** The whole of an apply or rollback run: moves the status, runs the statements, records the outcome. */
  async function runMigration(
    kind: MigrationOperation,
    run: Run,
    context: RunContext,
  ): Promise<Record<string, unknown>> {
    const { migration, target } = await subject(run);
    const statements = kind === 'apply' ? migration.statements : (migration.rollback ?? []);
    if (kind === 'rollback' && migration.rollback === null) throw conflict('This migration has no rollback');
    const started = await moveStatus(db, migration.id, startsFrom(kind), {
      status: RUNNING[kind],
      failed_operation: null,
      updated_at: now(),
    });
    if (!started)
      throw conflict(allows(kind, migration) ? 'The migration changed meanwhile' : refusal(kind, migration));
    const executable = statements.map(({ sql, transactional }) => ({ sql, transactional }));
    let result: ApplyResult;
    try {
      await context.progress(0, executable.length);
      result = await execute(target, executable, context);
    } catch (error) {
      await updateMigration(db, migration.id, { ...failedBy(kind), updated_at: now() });
      throw error;
    }
    const report = outcome(executable, result, connections.dialectOf(target).capabilities.transactionalDdl);
    const backup_tables = JSON.stringify(
      backupTablesAfter(kind, migration.backup_tables, statements, tookEffect(executable, report)),
    );
    if (result.failed !== null) {
      await updateMigration(db, migration.id, { ...failedBy(kind), backup_tables, updated_at: now() });
      throw new RunFailed(
        `Statement ${result.failed.index + 1} failed (${result.failed.error.kind}): ${result.failed.error.message}`,
        report,
      );
    }
    const after = await connections.withTarget(target, (handle) => handle.introspect());
    const hash = schemaHash(after);
    if (kind === 'rollback') {
      await updateMigration(db, migration.id, { ...DONE.rollback, backup_tables, updated_at: now() });
      return { ...report, schema_hash: hash, restored: hash === migration.target_schema_hash };
    }
    const scope = migration.scope as TableScope;
    const residual = diffSchemas(
      scopeModel(after, scope),
      scopeModel(migration.source_model as SchemaModel, scope),
    );
    const at = now();
    await updateMigration(db, migration.id, { ...DONE.apply, backup_tables, applied_at: at, updated_at: at });
    return { ...report, schema_hash: hash, residual_diff: residual, residual_empty: isEmptyDiff(residual) };
  }

  return {
    migration_apply: (run, context) => runMigration('apply', run, context),
    migration_rollback: (run, context) => runMigration('rollback', run, context),
  };
}

// After the process applying or rolling back a migration died mid-run, the sweep fails the run as
// interrupted and calls here: the migration leaves `applying` (or `rolling_back`) for the state the
// target shows (the states and their names are migration-states.ts's).
// PostgreSQL applies in one transaction, so the target is either as compared (untouched: `failed`,
// and it can be applied again) or as the source within the compare's scope (`applied`).
// MySQL commits DDL statement by statement, and the run journaled each statement's start
// (migration-journal.ts): the statements that ended are applied, those that never started are not,
// and the one in flight is classified by introspecting the target, once the dead process's session
// on it has ended (the server would otherwise go on running the statement). The run's result
// becomes that exact report (docs/contract.md §8); the migration is `applied` (or `rolled_back`) when every
// statement took effect, unchanged when none did, and `failed` in between: compare again and apply
// what is left.
import type { StatementFact } from '../../engine/migration/facts.ts';
import { scopeModel, type TableScope } from '../../engine/migration/index.ts';
import { statementEffect } from '../../engine/migration/statement-effect.ts';
import { diffSchemas, isEmptyDiff } from '../../engine/schema/diff.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Db } from '../../store/db.ts';
import type { Connection, Run, SchemaMigration } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { amendInterruptedRun } from '../runs/runs.repo.ts';
import { readJournal, settledReport } from './migration-journal.ts';
import { DONE, failedBy, type MigrationOperation, type MigrationState, RUNNING } from './migration-states.ts';
import { findMigrationById, moveStatus } from './migrations.repo.ts';

/** How long the dead run's statement may take to stop on the target before it is reported unknown. */
const SESSION_END_TIMEOUT_MS = 30_000;

type Kind = MigrationOperation;

/** The run's own state: only a migration its run left in it is settled here. */
const running = (kind: Kind): MigrationState[] => [{ status: RUNNING[kind], failed_operation: null }];
/** A rollback that changed nothing leaves the migration applied, as it was. */
const UNCHANGED_BY_ROLLBACK: MigrationState = { status: 'applied', failed_operation: null };

export function createMigrationInterrupted(deps: {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById' | 'dialectOf'>;
  now: () => Date;
}) {
  const { db, connections, now } = deps;

  /** One transaction: the target is as before or as the source. */
  async function settleTransactional(migration: SchemaMigration, target: Connection | undefined, kind: Kind) {
    const live = target ? await connections.withTarget(target, (handle) => handle.introspect()) : undefined;
    const scope = migration.scope as TableScope;
    const asSource =
      live !== undefined &&
      isEmptyDiff(
        diffSchemas(scopeModel(live, scope), scopeModel(migration.source_model as SchemaModel, scope)),
      );
    const asBefore = live !== undefined && schemaHash(live) === migration.target_schema_hash;
    const at = now();
    if (kind === 'apply' && asSource && !asBefore)
      await moveStatus(db, migration.id, running(kind), { ...DONE.apply, applied_at: at, updated_at: at });
    else if (kind === 'rollback' && asBefore)
      await moveStatus(db, migration.id, running(kind), { ...DONE.rollback, updated_at: at });
    else if (kind === 'rollback' && asSource)
      await moveStatus(db, migration.id, running(kind), { ...UNCHANGED_BY_ROLLBACK, updated_at: at });
    else await moveStatus(db, migration.id, running(kind), { ...failedBy(kind), updated_at: at });
  }

  /** The statements the run ran, with what each does (a rollback's are parsed from its SQL). */
  async function statementsOf(
    migration: SchemaMigration,
    target: Connection,
    kind: Kind,
  ): Promise<{ sql: string; facts: StatementFact[] | null }[]> {
    if (kind === 'apply')
      return migration.statements.map((s) => ({ sql: s.sql, facts: s.facts as StatementFact[] | null }));
    const dialect = connections.dialectOf(target);
    return Promise.all(
      (migration.rollback ?? []).map(async ({ sql }) => {
        const [parsed] = await dialect.parseSql(sql).catch(() => []);
        return { sql, facts: parsed?.facts ?? null };
      }),
    );
  }

  /** Statement by statement: the journal, and the target for the statement in flight. */
  async function settleJournaled(run: Run, migration: SchemaMigration, target: Connection, kind: Kind) {
    const statements = await statementsOf(migration, target, kind);
    const journal = readJournal(run.result, statements.length);
    const inFlight = journal.in_flight;
    let verdict: { applied: boolean | null; evidence: string } | null = null;
    if (inFlight) {
      verdict = await connections
        .withTarget(target, async (handle) => {
          if (!(await handle.endSession(inFlight.session, SESSION_END_TIMEOUT_MS)))
            return {
              applied: null,
              evidence: `still running on the target ${SESSION_END_TIMEOUT_MS / 1000} s after it was ended`,
            };
          const scope = migration.scope as TableScope;
          const compared = scopeModel(migration.target_model as SchemaModel, scope);
          const source = scopeModel(migration.source_model as SchemaModel, scope);
          return statementEffect({
            index: inFlight.index,
            facts: statements.map((s) => s.facts),
            live: await handle.introspect(),
            // A rollback runs from the source's shape back to the compared target's.
            before: kind === 'apply' ? compared : source,
            after: kind === 'apply' ? source : compared,
          });
        })
        .catch((error: unknown) => ({
          applied: null,
          evidence: `the target could not be asked: ${error instanceof Error ? error.message : String(error)}`,
        }));
    }
    const report = settledReport(journal, verdict);
    const applied = report.applied as number[];
    const every = applied.length === statements.length;
    const none = applied.length === 0 && verdict?.applied !== null;
    const at = now();
    const settled: MigrationState = every
      ? DONE[kind]
      : none && kind === 'rollback'
        ? UNCHANGED_BY_ROLLBACK
        : failedBy(kind);
    await amendInterruptedRun(db, run.id, { result: report });
    await moveStatus(db, migration.id, running(kind), {
      ...settled,
      ...(every && kind === 'apply' && { applied_at: at }),
      updated_at: at,
    });
  }

  async function settle(run: Run, kind: Kind): Promise<void> {
    const migration = run.subject_id ? await findMigrationById(db, run.subject_id) : undefined;
    if (migration?.status !== RUNNING[kind]) return;
    const target = await connections.findById(migration.target_connection_id);
    if (target && !connections.dialectOf(target).capabilities.transactionalDdl)
      await settleJournaled(run, migration, target, kind);
    else await settleTransactional(migration, target, kind);
  }

  return {
    apply: (run: Run) => settle(run, 'apply'),
    rollback: (run: Run) => settle(run, 'rollback'),
  };
}

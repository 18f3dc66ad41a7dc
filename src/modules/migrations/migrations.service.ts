// Schema migrations (docs/contract.md §8): compare two connections of a project into a planned, linted
// migration; review and edit it; apply it and roll it back as runs behind the approval gate. The
// target work itself happens in the run handlers (migration-runs.ts). What each status allows is
// migration-states.ts's; what is checked before a run is created, migration-guards.ts's.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { conflict, invalid, notFound } from '../../core/errors.ts';
import {
  type AnalyzedSql,
  analyzeSql,
  type Migration,
  planMigration,
  plannedClass,
  type TableStats,
} from '../../engine/migration/index.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Connection, Run, SchemaMigration } from '../../store/tables.ts';
import type { ApprovalGate } from '../approvals/approval-gate.ts';
import { summarize } from '../approvals/approval-subject.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireBodyConnection } from '../connections/connections.access.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { requireProject, requireProjectResource } from '../projects/projects.access.ts';
import type { RunsService } from '../runs/runs.service.ts';
import { contentHash, irreversibleDrops, lintMigration, storedStatements } from './migration-content.ts';
import {
  destroyingRollback,
  requireConfirmation,
  requireNoLintErrors,
  requireSchemaOnly,
} from './migration-guards.ts';
import { allows, refusal } from './migration-states.ts';
import { type MigrationView, viewOf, viewsFor } from './migration-views.ts';
import {
  findMigration,
  insertMigration,
  lockMigration,
  projectMigrationsQuery,
  updateMigration,
} from './migrations.repo.ts';
import type { ApplyBody, CompareBody, RollbackBody } from './migrations.schemas.ts';

/** What the `plan` column holds. */
export interface StoredPlan {
  migration: Migration;
  stats: TableStats[] | null;
  /** Planned with `online` (docs/contract.md §8); absent on plans stored before it existed. */
  online?: boolean;
}

export type MigrationsService = ReturnType<typeof createMigrationsService>;

export function createMigrationsService(deps: {
  db: Db;
  audit: AuditService;
  connections: Pick<ConnectionsService, 'introspect' | 'withTarget' | 'findById' | 'dialectOf'>;
  runs: Pick<RunsService, 'start'>;
  gate: Pick<ApprovalGate, 'voidApprovals'>;
  now: () => Date;
}) {
  const { db, audit, connections, runs, gate, now } = deps;

  /**
   * The migration, once the caller may do `action` on `connectionId` of its project (by default its
   * target, where a just-in-time grant on it counts): 404 naming the migration, or 403.
   */
  async function load(
    executor: Db,
    actor: Actor,
    id: string,
    action: Action,
    connectionId?: string,
  ): Promise<SchemaMigration> {
    const migration = await findMigration(executor, actor.principal.orgId, id);
    const resource = {
      name: 'Migration',
      row: migration,
      connectionId: connectionId ?? migration?.target_connection_id,
    };
    return (await requireProjectResource(executor, actor, resource, action)).row;
  }

  /**
   * The migration for a run of it: its runs bring the source's schema to the target, so the caller
   * needs the action on both, a grant on one opening nothing on the other. The gated-run path checks
   * this again; checked here first, a refusal comes before anything the migration's state would say.
   */
  async function loadForRun(actor: Actor, id: string, action: Action): Promise<SchemaMigration> {
    const migration = await load(db, actor, id, action);
    return load(db, actor, id, action, migration.source_connection_id);
  }

  /**
   * The stored SQL's statements with their class. SQL still as the compare planned it is the plan's
   * own statement by statement (a MySQL routine's body holds `;`s that a split of the whole text
   * would cut): only their calls outside the database are left to check.
   */
  async function classedStatements(migration: SchemaMigration, target: Connection) {
    const plan = (migration.plan as StoredPlan).migration;
    if (migration.generated_sql !== plan.sql)
      return (await analyze(migration, target, migration.generated_sql)).statements;
    const dialect = connections.dialectOf(target);
    return Promise.all(
      plan.statements.map(async ({ sql }) => {
        const pieces = await dialect.parseSql(sql);
        const holdsCode = pieces.some((piece) => piece.class.holds_code === true);
        return { sql, class: plannedClass({ schema_only: true, name: 'planned', holds_code: holdsCode }) };
      }),
    );
  }

  /** Edited or stored SQL read as the migration's dialect reads it, planned statements recognised. */
  async function analyze(migration: SchemaMigration, target: Connection, sql: string): Promise<AnalyzedSql> {
    return analyzeSql(sql, {
      dialect: connections.dialectOf(target),
      target: migration.target_model as SchemaModel,
      plan: (migration.plan as StoredPlan).migration,
    });
  }

  const connectionIn = (actor: Actor, projectId: string, id: string, field: string) =>
    requireBodyConnection(db, actor, projectId, id, 'migration.compare', field);

  /** The audit entry names the migration by the connection it changes, as a person reads the log. */
  function event(
    action: string,
    migration: SchemaMigration,
    target: Connection,
    details?: Record<string, unknown>,
  ) {
    return {
      action,
      projectId: migration.project_id,
      target: { type: 'migration', id: migration.id, label: `Migration of ${target.name}` },
      details,
    };
  }

  async function targetOf(migration: SchemaMigration): Promise<Connection> {
    const target = await connections.findById(migration.target_connection_id);
    if (!target) throw notFound('Connection');
    return target;
  }

  /** Gates and creates the run of `operation`, in one transaction; sends it after the commit. */
  async function startRun(
    actor: Actor,
    migration: SchemaMigration,
    target: Connection,
    operation: 'migration_apply' | 'migration_rollback',
    sql: string,
    total: number,
  ): Promise<Run> {
    const applying = operation === 'migration_apply';
    return runs.start(actor, {
      projectId: migration.project_id,
      kind: operation,
      subject: {
        kind: 'migration',
        id: migration.id,
        title: `${applying ? 'Apply' : 'Roll back'} ${total} statement${total === 1 ? '' : 's'} on ${target.name}`,
        summary: summarize(sql),
      },
      params: {
        migration_id: migration.id,
        source_connection_id: migration.source_connection_id,
        target_connection_id: migration.target_connection_id,
      },
      contentHash: contentHash(sql, migration.target_schema_hash),
      total,
      unit: 'statements',
      audit: event(applying ? 'migration.apply' : 'migration.rollback', migration, target),
      lock: async (trx) => {
        const locked = await lockMigration(trx, migration.id);
        if (
          !locked ||
          locked.updated_at.getTime() !== migration.updated_at.getTime() ||
          locked.status !== migration.status
        )
          throw conflict('The migration changed meanwhile; try again');
      },
    });
  }

  return {
    async compare(actor: Actor, projectId: string, body: CompareBody): Promise<MigrationView> {
      await requireProject(db, actor, projectId, 'migration.compare');
      const source = await connectionIn(actor, projectId, body.source_connection_id, 'source_connection_id');
      const target = await connectionIn(actor, projectId, body.target_connection_id, 'target_connection_id');
      if (source.dialect !== target.dialect)
        throw invalid(
          ['body', 'target_connection_id'],
          `The source is ${source.dialect} and the target ${target.dialect}: a migration needs two connections of the same dialect`,
          'dialect_mismatch',
        );
      // Both sides at once, and the target's statistics beside its catalog: each is a wait on a
      // server, which works them on its own backends (bench/schema-dependencies.ts).
      const [sourceModel, [targetModel, stats]] = await Promise.all([
        connections.introspect(source),
        connections.withTarget(target, (handle) => Promise.all([handle.introspect(), handle.tableStats()])),
      ]);
      const id = randomUUID();
      const scope = {
        ...(body.include_tables && { include_tables: body.include_tables }),
        ...(body.exclude_tables && { exclude_tables: body.exclude_tables }),
      };
      const dialect = connections.dialectOf(target);
      const plan = planMigration(sourceModel, targetModel, dialect, {
        ...scope,
        backup_drops: body.backup_drops ?? false,
        online: body.online ?? false,
        plan_id: id,
      });
      const lint = lintMigration(plan.statements, target.dialect, targetModel, stats);
      const stored: StoredPlan = { migration: plan, stats, online: body.online ?? false };
      const at = now();
      const created = await db.transaction().execute(async (trx) => {
        const migration = await insertMigration(trx, {
          id,
          org_id: actor.principal.orgId,
          project_id: projectId,
          source_connection_id: source.id,
          target_connection_id: target.id,
          status: 'draft',
          generated_sql: plan.sql,
          statements: JSON.stringify(storedStatements(plan.statements)),
          lint_warnings: JSON.stringify(lint),
          rollback: plan.rollback === null ? null : JSON.stringify(plan.rollback),
          rollback_sql: plan.rollback_sql,
          plan: JSON.stringify(stored),
          source_model: JSON.stringify(sourceModel),
          target_model: JSON.stringify(targetModel),
          scope: JSON.stringify(scope),
          source_schema_hash: schemaHash(sourceModel),
          target_schema_hash: schemaHash(targetModel),
          applied_at: null,
          failed_operation: null,
          created_by: actor.principal.userId,
          created_at: at,
          updated_at: at,
        });
        await audit.record(
          trx,
          actor,
          event('migration.compare', migration, target, {
            source_connection_id: source.id,
            statements: plan.statements.length,
            lint_warnings: lint.length,
          }),
        );
        return migration;
      });
      const [view] = await viewsFor(db, actor, [created]);
      return view!;
    },

    async list(actor: Actor, projectId: string, page: PageRequest) {
      await requireProject(db, actor, projectId, 'migration.read');
      const found = await paginate(projectMigrationsQuery(db, projectId), page);
      return { ...found, rows: await viewsFor(db, actor, found.rows) };
    },

    async get(actor: Actor, id: string): Promise<MigrationView> {
      return viewOf(db, actor, await load(db, actor, id, 'migration.read'));
    },

    /**
     * Re-parses, re-lints and regenerates the rollback of edited SQL; voids the approvals. SQL that
     * is not schema only (docs/contract.md §8) is refused with 422 before anything is stored.
     */
    async edit(actor: Actor, id: string, sql: string): Promise<MigrationView> {
      const current = await load(db, actor, id, 'migration.edit');
      const target = await targetOf(current);
      const stored = current.plan as StoredPlan;
      const targetModel = current.target_model as SchemaModel;
      const analyzed = await analyze(current, target, sql);
      requireSchemaOnly(analyzed.statements, target.dialect, ['body', 'generated_sql']);
      const lint = lintMigration(analyzed.statements, target.dialect, targetModel, stored.stats);
      const updated = await db.transaction().execute(async (trx) => {
        const locked = await lockMigration(trx, id);
        if (!locked) throw notFound('Migration');
        if (!allows('edit', locked)) throw conflict(refusal('edit', locked));
        const updated = await updateMigration(trx, id, {
          generated_sql: sql,
          statements: JSON.stringify(storedStatements(analyzed.statements)),
          lint_warnings: JSON.stringify(lint),
          rollback: analyzed.rollback === null ? null : JSON.stringify(analyzed.rollback),
          rollback_sql: analyzed.rollback_sql,
          updated_at: now(),
        });
        const voided = await gate.voidApprovals(trx, actor, id);
        await audit.record(
          trx,
          actor,
          event('migration.update', updated, target, {
            statements: analyzed.statements.length,
            lint_warnings: lint.length,
            approvals_voided: voided,
          }),
        );
        return updated;
      });
      return viewOf(db, actor, updated);
    },

    async apply(actor: Actor, id: string, body: ApplyBody): Promise<Run> {
      const migration = await loadForRun(actor, id, 'migration.apply');
      if (!allows('apply', migration)) throw conflict(refusal('apply', migration));
      const target = await targetOf(migration);
      // Again at apply: SQL stored before the rule, or before a call was known to reach outside.
      requireSchemaOnly(await classedStatements(migration, target), target.dialect, ['body']);
      requireNoLintErrors(migration.lint_warnings);
      const drops = irreversibleDrops(migration.statements).map((d) => ({
        statement_index: d.statement_index,
        what: `drops ${d.kind} ${d.object}`,
      }));
      requireConfirmation(drops, body, target);
      const live = await connections.introspect(target);
      if (schemaHash(live) !== migration.target_schema_hash)
        throw conflict("The target's schema changed since the compare; compare again");
      return startRun(
        actor,
        migration,
        target,
        'migration_apply',
        migration.generated_sql,
        migration.statements.length,
      );
    },

    /** A rollback that destroys data takes the double confirmation of apply (docs/contract.md §8). */
    async rollback(actor: Actor, id: string, body: RollbackBody): Promise<Run> {
      const migration = await loadForRun(actor, id, 'migration.rollback');
      if (migration.rollback === null || migration.rollback_sql === null)
        throw conflict('This migration has no rollback');
      if (!allows('rollback', migration)) throw conflict(refusal('rollback', migration));
      const target = await targetOf(migration);
      requireConfirmation(destroyingRollback(migration.rollback), body, target);
      return startRun(
        actor,
        migration,
        target,
        'migration_rollback',
        migration.rollback_sql,
        migration.rollback.length,
      );
    },
  };
}

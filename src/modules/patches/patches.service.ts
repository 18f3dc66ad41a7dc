// Data patches (docs/contract.md §9): DML for one connection of a project, parsed by the engine's real parser
// when saved (only plain DML: UPDATE, DELETE, INSERT) and checked against the connection's schema
// (the tables exist; whether each statement can be rolled back, and by which key), listed, read,
// edited (which voids the approvals of the old content) and deleted.
import { createHash, randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { conflict, invalid, notFound } from '../../core/errors.ts';
import type { PatchStatement } from '../../engine/patch/parse-patch.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Connection, Patch, Run, StoredPatchStatement } from '../../store/tables.ts';
import type { ApprovalGate } from '../approvals/approval-gate.ts';
import { summarize } from '../approvals/approval-subject.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireBodyConnection } from '../connections/connections.access.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { callerRights, requireProject, requireProjectResource } from '../projects/projects.access.ts';
import { activeRunOf, activeRunsOf } from '../runs/runs.repo.ts';
import type { RunsService } from '../runs/runs.service.ts';
import { type DryRunResult, dryRunPatch, PatchStatementFailed } from './patch-dry-run.ts';
import { introspectSafe } from './patch-safety.ts';
import { keyedStatements, parsedStatements } from './patch-statements.ts';
import {
  allowedPatchActions,
  inFlightRefusal,
  type PatchAction,
  type PatchView,
  patchStateRefusal,
} from './patch-states.ts';
import {
  deletePatch,
  findPatch,
  insertPatch,
  lockPatch,
  projectPatchesQuery,
  updatePatch,
} from './patches.repo.ts';
import type { CreatePatchBody, EditPatchBody, ExecuteBody, RollbackBody } from './patches.schemas.ts';

/** What an approval of an execution is bound to: the SQL, how it may run, and the schema it meets. */
function contentHash(patch: Patch, body: ExecuteBody, targetSchemaHash: string): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        patch.sql,
        patch.allow_full_table,
        body.expected_rows ?? null,
        body.allow_irreversible === true,
        targetSchemaHash,
      ]),
    )
    .digest('hex');
}

export type PatchesService = ReturnType<typeof createPatchesService>;

export function createPatchesService(deps: {
  db: Db;
  audit: AuditService;
  connections: Pick<ConnectionsService, 'findById' | 'withTarget' | 'dialectOf'>;
  statementTimeoutMs: number;
  gate: Pick<ApprovalGate, 'voidApprovals'>;
  runs: Pick<RunsService, 'start'>;
  now: () => Date;
}) {
  const { db, audit, connections, gate, runs, now } = deps;

  async function load(executor: Db, actor: Actor, id: string, action: Action): Promise<Patch> {
    const patch = await findPatch(executor, actor.principal.orgId, id);
    const resource = { name: 'Patch', row: patch, connectionId: patch?.connection_id };
    return (await requireProjectResource(executor, actor, resource, action)).row;
  }

  function event(action: string, patch: Patch, details?: Record<string, unknown>) {
    return {
      action,
      projectId: patch.project_id,
      target: { type: 'patch', id: patch.id, label: patch.title },
      details,
    };
  }

  /** 409 when the patch's state does not allow `action`. */
  function refuseUnless(patch: Patch, action: PatchAction): void {
    const refusal = patchStateRefusal(patch, action);
    if (refusal !== null) throw conflict(refusal);
  }

  /** Locks the patch for a change; 409 when it changed since `patch` was read, or its run in flight forbids `action`. */
  async function lockUnchanged(trx: Db, patch: Patch, action: PatchAction): Promise<Patch> {
    const locked = await lockPatch(trx, patch.id);
    if (!locked) throw notFound('Patch');
    if (locked.updated_at.getTime() !== patch.updated_at.getTime() || locked.status !== patch.status)
      throw conflict('The patch changed meanwhile; try again');
    refuseUnless(locked, action);
    // Execute and rollback start their run through runs.start, which refuses a second one itself.
    if (action === 'edit' || action === 'delete') {
      const busy = inFlightRefusal(action, await activeRunOf(trx, patch.id));
      if (busy) throw conflict(busy);
    }
    return locked;
  }

  const subjectOf = (patch: Patch) => ({
    kind: 'patch' as const,
    id: patch.id,
    title: patch.title,
    summary: summarize(patch.sql),
  });

  /** The patches with what the caller may do to each now (`allowed_actions`). */
  async function withActions(actor: Actor, patches: Patch[]): Promise<PatchView[]> {
    const inFlight = await activeRunsOf(
      db,
      patches.map((p) => p.id),
    );
    const rights = new Map<string, (action: Action) => boolean>();
    const views: PatchView[] = [];
    for (const patch of patches) {
      const key = `${patch.project_id}/${patch.connection_id}`;
      let may = rights.get(key);
      if (!may) {
        may = await callerRights(db, actor, patch.project_id, patch.connection_id);
        rights.set(key, may);
      }
      views.push({ ...patch, allowed_actions: allowedPatchActions(patch, may, inFlight.get(patch.id)) });
    }
    return views;
  }
  const withActionsOne = async (actor: Actor, patch: Patch) => (await withActions(actor, [patch]))[0]!;

  async function connectionOf(patch: Patch): Promise<Connection> {
    const connection = await connections.findById(patch.connection_id);
    if (!connection) throw notFound('Connection');
    return connection;
  }

  /** The hash of the connection's schema as it is now: what an approval is bound to (docs/contract.md §10). */
  const liveSchemaHash = (connection: Connection) =>
    connections.withTarget(connection, async (handle) => schemaHash(await handle.introspect()));

  /** The statements keyed on the connection's schema as it is now. */
  async function checkedStatements(
    connection: Connection,
    statements: PatchStatement[],
  ): Promise<StoredPatchStatement[]> {
    // Where a qualifier names a database, not a schema (MySQL), images and keys are read in the
    // connection's database: a statement naming another one would change tables nobody imaged.
    const elsewhere = statements.find(
      (s) =>
        !connections.dialectOf(connection).capabilities.schemasInDatabase &&
        s.table.includes('.') &&
        !s.table.startsWith(`${connection.database}.`),
    );
    if (elsewhere)
      throw invalid(
        ['body', 'sql'],
        `Statement ${elsewhere.index + 1}: ${elsewhere.table} is outside the connection's database ${connection.database}`,
        'invalid_patch',
      );
    const model = await connections.withTarget(connection, (handle) => introspectSafe(handle, statements));
    return keyedStatements(statements, model);
  }

  return {
    async create(actor: Actor, body: CreatePatchBody): Promise<PatchView> {
      // With the connection, so that a just-in-time grant on that connection counts.
      await requireProject(db, actor, body.project_id, 'patch.create', { connectionId: body.connection_id });
      const connection = await requireBodyConnection(
        db,
        actor,
        body.project_id,
        body.connection_id,
        'patch.create',
      );
      const allowFullTable = body.allow_full_table ?? false;
      const statements = await checkedStatements(
        connection,
        await parsedStatements(connection.dialect, body.sql, allowFullTable),
      );
      const at = now();
      const created = await db.transaction().execute(async (trx) => {
        const patch = await insertPatch(trx, {
          id: randomUUID(),
          org_id: actor.principal.orgId,
          project_id: body.project_id,
          connection_id: connection.id,
          title: body.title,
          sql: body.sql,
          allow_full_table: allowFullTable,
          status: 'draft',
          statements: JSON.stringify(statements),
          executed_at: null,
          execute_run_id: null,
          created_by: actor.principal.userId,
          created_at: at,
          updated_at: at,
        });
        await audit.record(trx, actor, event('patch.create', patch, { statements: statements.length }));
        return patch;
      });
      return withActionsOne(actor, created);
    },

    async list(actor: Actor, projectId: string, page: PageRequest) {
      await requireProject(db, actor, projectId, 'patch.read');
      const { rows, total } = await paginate(projectPatchesQuery(db, projectId), page);
      return { rows: await withActions(actor, rows), total };
    },

    get: async (actor: Actor, id: string) => withActionsOne(actor, await load(db, actor, id, 'patch.read')),

    /** Changes the title, SQL or full-table allowance; a content change voids the approvals. */
    async edit(actor: Actor, id: string, body: EditPatchBody): Promise<PatchView> {
      const current = await load(db, actor, id, 'patch.edit');
      const sql = body.sql ?? current.sql;
      const allowFullTable = body.allow_full_table ?? current.allow_full_table;
      const contentChanged = sql !== current.sql || allowFullTable !== current.allow_full_table;
      const connection = await connectionOf(current);
      const statements = contentChanged
        ? await checkedStatements(connection, await parsedStatements(connection.dialect, sql, allowFullTable))
        : current.statements;
      const edited = await db.transaction().execute(async (trx) => {
        await lockUnchanged(trx, current, 'edit');
        const updated = await updatePatch(trx, id, {
          title: body.title ?? current.title,
          sql,
          allow_full_table: allowFullTable,
          statements: JSON.stringify(statements),
          updated_at: now(),
        });
        const voided = contentChanged ? await gate.voidApprovals(trx, actor, id) : 0;
        await audit.record(
          trx,
          actor,
          event('patch.update', updated, { statements: statements.length, approvals_voided: voided }),
        );
        return updated;
      });
      return withActionsOne(actor, edited);
    },

    /** Runs the statements in a transaction that is rolled back; a failing statement answers 422. */
    async dryRun(actor: Actor, id: string): Promise<DryRunResult> {
      const patch = await load(db, actor, id, 'patch.dry_run');
      refuseUnless(patch, 'dry_run');
      const connection = await connectionOf(patch);
      try {
        return await connections.withTarget(connection, (handle) =>
          dryRunPatch(handle, patch.statements, { statementTimeoutMs: deps.statementTimeoutMs }),
        );
      } catch (error) {
        if (error instanceof PatchStatementFailed)
          throw invalid(
            ['body', 'sql'],
            `Statement ${error.index + 1} failed: ${error.message}`,
            'statement_failed',
          );
        throw error;
      }
    },

    /**
     * Gates and creates the `patch_execute` run in one transaction; sends it after the commit. The
     * approval is bound to the SQL, the full-table allowance, `expected_rows` and the target's schema
     * hash, which the run checks again before it changes anything.
     */
    async execute(actor: Actor, id: string, body: ExecuteBody): Promise<Run> {
      const patch = await load(db, actor, id, 'patch.execute');
      refuseUnless(patch, 'execute');
      const irreversible = patch.statements.filter((s) => !s.reversible);
      if (irreversible.length > 0 && body.allow_irreversible !== true)
        throw invalid(
          ['body', 'allow_irreversible'],
          `${irreversible.map((s) => `Statement ${s.index + 1} cannot be rolled back (${s.irreversible_reason})`).join('; ')}: send allow_irreversible: true to execute anyway`,
          'irreversible_patch',
        );
      const connection = await connectionOf(patch);
      const targetSchema = await liveSchemaHash(connection);
      return runs.start(actor, {
        projectId: patch.project_id,
        kind: 'patch_execute',
        subject: subjectOf(patch),
        params: {
          patch_id: patch.id,
          connection_id: connection.id,
          ...(body.expected_rows !== undefined && { expected_rows: body.expected_rows }),
          allow_irreversible: body.allow_irreversible === true,
          target_schema_hash: targetSchema,
        },
        contentHash: contentHash(patch, body, targetSchema),
        total: patch.statements.length,
        unit: 'statements',
        audit: event('patch.execute', patch),
        lock: (trx) => lockUnchanged(trx, patch, 'execute'),
      });
    },

    /** Gates and creates the `patch_rollback` run of an executed patch; sends it after the commit. */
    async rollback(actor: Actor, id: string, body: RollbackBody): Promise<Run> {
      const patch = await load(db, actor, id, 'patch.rollback');
      refuseUnless(patch, 'rollback');
      const connection = await connectionOf(patch);
      const targetSchema = await liveSchemaHash(connection);
      return runs.start(actor, {
        projectId: patch.project_id,
        kind: 'patch_rollback',
        subject: subjectOf(patch),
        params: {
          patch_id: patch.id,
          connection_id: connection.id,
          force: body.force === true,
          target_schema_hash: targetSchema,
        },
        contentHash: createHash('sha256')
          .update(JSON.stringify([patch.execute_run_id, body.force === true, targetSchema]))
          .digest('hex'),
        total: patch.statements.length,
        unit: 'statements',
        audit: event('patch.rollback', patch, { force: body.force === true }),
        lock: (trx) => lockUnchanged(trx, patch, 'rollback'),
      });
    },

    async remove(actor: Actor, id: string): Promise<void> {
      const patch = await load(db, actor, id, 'patch.delete');
      await db.transaction().execute(async (trx) => {
        const locked = await lockUnchanged(trx, patch, 'delete');
        await gate.voidApprovals(trx, actor, id);
        await deletePatch(trx, id);
        await audit.record(trx, actor, event('patch.delete', locked));
      });
    },
  };
}

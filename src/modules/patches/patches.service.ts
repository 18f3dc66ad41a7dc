// Data patches (API §9): DML for one connection of a project, parsed by the engine's real parser
// when saved (only plain DML: UPDATE, DELETE, INSERT) and checked against the connection's schema
// (the tables exist; whether each statement can be rolled back, and by which key), listed, read,
// edited (which voids the approvals of the old content) and deleted.
import { createHash, randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, invalid, notFound } from '../../core/errors.ts';
import { dialects } from '../../dialects/index.ts';
import type { PatchStatement } from '../../engine/patch/parse-patch.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Connection, Patch, Run, StoredPatchStatement } from '../../store/tables.ts';
import type { ApprovalGate } from '../approvals/approval-gate.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireBodyConnection } from '../connections/connections.access.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { requireProject } from '../projects/projects.access.ts';
import type { RunsService } from '../runs/runs.service.ts';
import { type DryRunResult, dryRunPatch, PatchStatementFailed } from './patch-dry-run.ts';
import { introspectSafe } from './patch-safety.ts';
import { keyedStatements, parsedStatements } from './patch-statements.ts';
import {
  deletePatch,
  findPatch,
  insertPatch,
  lockPatch,
  projectPatchesQuery,
  updatePatch,
} from './patches.repo.ts';
import type { CreatePatchBody, EditPatchBody, ExecuteBody, RollbackBody } from './patches.schemas.ts';

const EDITABLE = new Set(['draft', 'failed']);

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
  connections: Pick<ConnectionsService, 'findById' | 'withTarget'>;
  statementTimeoutMs: number;
  gate: Pick<ApprovalGate, 'gate' | 'voidApprovals'>;
  runs: Pick<RunsService, 'create' | 'enqueue'>;
  now: () => Date;
}) {
  const { db, audit, connections, gate, runs, now } = deps;

  async function load(executor: Db, actor: Actor, id: string, action: Action): Promise<Patch> {
    const patch = await findPatch(executor, actor.principal.orgId, id);
    if (!patch) throw notFound('Patch');
    try {
      await requireProject(executor, actor, patch.project_id, action, { connectionId: patch.connection_id });
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw notFound('Patch');
      throw error;
    }
    return patch;
  }

  function event(action: string, patch: Patch, details?: Record<string, unknown>) {
    return {
      action,
      projectId: patch.project_id,
      target: { type: 'patch', id: patch.id, label: patch.title },
      details,
    };
  }

  async function connectionOf(patch: Patch): Promise<Connection> {
    const connection = await connections.findById(patch.connection_id);
    if (!connection) throw notFound('Connection');
    return connection;
  }

  /** The hash of the connection's schema as it is now: what an approval is bound to (API §10). */
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
        !dialects[connection.dialect].capabilities.schemasInDatabase &&
        s.table.includes('.') &&
        !s.table.startsWith(`${connection.database}.`),
    );
    if (elsewhere)
      throw invalid(
        ['body', 'sql'],
        `Statement ${elsewhere.index}: ${elsewhere.table} is outside the connection's database ${connection.database}`,
        'invalid_patch',
      );
    const model = await connections.withTarget(connection, (handle) => introspectSafe(handle, statements));
    return keyedStatements(statements, model);
  }

  return {
    async create(actor: Actor, body: CreatePatchBody): Promise<Patch> {
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
      return db.transaction().execute(async (trx) => {
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
    },

    async list(actor: Actor, projectId: string, page: PageRequest) {
      await requireProject(db, actor, projectId, 'patch.read');
      return paginate(projectPatchesQuery(db, projectId), page);
    },

    get: (actor: Actor, id: string) => load(db, actor, id, 'patch.read'),

    /** Changes the title, SQL or full-table allowance; a content change voids the approvals. */
    async edit(actor: Actor, id: string, body: EditPatchBody): Promise<Patch> {
      const current = await load(db, actor, id, 'patch.edit');
      const sql = body.sql ?? current.sql;
      const allowFullTable = body.allow_full_table ?? current.allow_full_table;
      const contentChanged = sql !== current.sql || allowFullTable !== current.allow_full_table;
      const connection = await connectionOf(current);
      const statements = contentChanged
        ? await checkedStatements(connection, await parsedStatements(connection.dialect, sql, allowFullTable))
        : current.statements;
      return db.transaction().execute(async (trx) => {
        const locked = await lockPatch(trx, id);
        if (!locked) throw notFound('Patch');
        if (!EDITABLE.has(locked.status))
          throw conflict(`The patch is ${locked.status}; only a draft or failed patch can be edited`);
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
    },

    /** Runs the statements in a transaction that is rolled back; a failing statement answers 422. */
    async dryRun(actor: Actor, id: string): Promise<DryRunResult> {
      const patch = await load(db, actor, id, 'patch.dry_run');
      const connection = await connectionOf(patch);
      try {
        return await connections.withTarget(connection, (handle) =>
          dryRunPatch(handle, patch.statements, { statementTimeoutMs: deps.statementTimeoutMs }),
        );
      } catch (error) {
        if (error instanceof PatchStatementFailed)
          throw invalid(
            ['body', 'sql'],
            `Statement ${error.index} failed: ${error.message}`,
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
      if (!EDITABLE.has(patch.status))
        throw conflict(`The patch is ${patch.status}; only a draft or failed patch can be executed`);
      const irreversible = patch.statements.filter((s) => !s.reversible);
      if (irreversible.length > 0 && body.allow_irreversible !== true)
        throw invalid(
          ['body', 'allow_irreversible'],
          `${irreversible.map((s) => `Statement ${s.index} cannot be rolled back (${s.irreversible_reason})`).join('; ')}: send allow_irreversible: true to execute anyway`,
          'irreversible_patch',
        );
      const connection = await connectionOf(patch);
      const targetSchema = await liveSchemaHash(connection);
      const run = await db.transaction().execute(async (trx) => {
        const locked = await lockPatch(trx, id);
        if (
          !locked ||
          locked.updated_at.getTime() !== patch.updated_at.getTime() ||
          locked.status !== patch.status
        )
          throw conflict('The patch changed meanwhile; try again');
        const verdict = await gate.gate(trx, actor, {
          projectId: patch.project_id,
          operation: 'patch_execute',
          writesTo: connection,
          subjectId: patch.id,
          contentHash: contentHash(patch, body, targetSchema),
        });
        const created = await runs.create(trx, actor, {
          projectId: patch.project_id,
          kind: 'patch_execute',
          subjectId: patch.id,
          total: patch.statements.length,
          unit: 'statements',
          params: {
            patch_id: patch.id,
            ...(body.expected_rows !== undefined && { expected_rows: body.expected_rows }),
            allow_irreversible: body.allow_irreversible === true,
            target_schema_hash: targetSchema,
          },
          awaitingApprovalId: verdict.decision === 'await' ? verdict.approvalId : null,
        });
        await audit.record(
          trx,
          actor,
          event('patch.execute', patch, { run_id: created.id, status: created.status }),
        );
        return created;
      });
      await runs.enqueue(run);
      return run;
    },

    /** Gates and creates the `patch_rollback` run of an executed patch; sends it after the commit. */
    async rollback(actor: Actor, id: string, body: RollbackBody): Promise<Run> {
      const patch = await load(db, actor, id, 'patch.rollback');
      if (patch.status !== 'executed' || patch.execute_run_id === null)
        throw conflict(`The patch is ${patch.status}; only an executed patch can be rolled back`);
      if (patch.backups_dropped_at !== null)
        throw conflict(
          `The patch's backups were dropped on ${patch.backups_dropped_at.toISOString()} (BACKUP_RETENTION_DAYS): it cannot be rolled back`,
        );
      const irreversible = patch.statements.filter((s) => !s.reversible);
      if (irreversible.length > 0)
        throw conflict(
          `This patch cannot be rolled back: ${irreversible.map((s) => `statement ${s.index}: ${s.irreversible_reason ?? 'it has no rollback key'}`).join('; ')}`,
        );
      const connection = await connectionOf(patch);
      const targetSchema = await liveSchemaHash(connection);
      const run = await db.transaction().execute(async (trx) => {
        const locked = await lockPatch(trx, id);
        if (locked?.status !== 'executed' || locked.backups_dropped_at !== null)
          throw conflict('The patch changed meanwhile; try again');
        const verdict = await gate.gate(trx, actor, {
          projectId: patch.project_id,
          operation: 'patch_rollback',
          writesTo: connection,
          subjectId: patch.id,
          contentHash: createHash('sha256')
            .update(JSON.stringify([patch.execute_run_id, body.force === true, targetSchema]))
            .digest('hex'),
        });
        const created = await runs.create(trx, actor, {
          projectId: patch.project_id,
          kind: 'patch_rollback',
          subjectId: patch.id,
          total: patch.statements.length,
          unit: 'statements',
          params: {
            patch_id: patch.id,
            force: body.force === true,
            target_schema_hash: targetSchema,
          },
          awaitingApprovalId: verdict.decision === 'await' ? verdict.approvalId : null,
        });
        await audit.record(
          trx,
          actor,
          event('patch.rollback', patch, {
            run_id: created.id,
            status: created.status,
            force: body.force === true,
          }),
        );
        return created;
      });
      await runs.enqueue(run);
      return run;
    },

    async remove(actor: Actor, id: string): Promise<void> {
      await load(db, actor, id, 'patch.delete');
      await db.transaction().execute(async (trx) => {
        const locked = await lockPatch(trx, id);
        if (!locked) throw notFound('Patch');
        if (locked.status === 'executing')
          throw conflict('The patch is executing; try again when it is done');
        // The record of what was done, and the only way to its backup tables, stays while they do.
        if (locked.execute_run_id !== null && locked.backups_dropped_at === null)
          throw conflict(
            'An executed patch is kept until its backups are dropped (BACKUP_RETENTION_DAYS after execution)',
          );
        await gate.voidApprovals(trx, actor, id);
        await deletePatch(trx, id);
        await audit.record(trx, actor, event('patch.delete', locked));
      });
    },
  };
}

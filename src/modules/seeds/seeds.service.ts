// Seed scenarios (API §9.1): a definition for one connection of a project, checked against the live
// schema of the connection when saved (engine/seed/plan.ts: 422 naming every problem), listed,
// read, edited (a new definition or seed voids the approvals bound to the old one) and deleted;
// the preview plans and shows the first rows, nothing written; the run (seed-run.ts) waits for
// approval where the project policy or a protected connection says so.
import { createHash, randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, invalid, notFound } from '../../core/errors.ts';
import { canonicalJson } from '../../engine/anonymize/keyed.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { SeedDefinition } from '../../engine/seed/definition.ts';
import { planSeed, type SeedPlan } from '../../engine/seed/plan.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Connection, Run, SeedScenario } from '../../store/tables.ts';
import type { ApprovalGate } from '../approvals/approval-gate.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireConnection } from '../connections/connections.access.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { requireProject } from '../projects/projects.access.ts';
import type { RunsService } from '../runs/runs.service.ts';
import { previewPlan } from './seed-preview.ts';
import type { SeedRunParams } from './seed-run.ts';
import { populatedTables } from './seed-target.ts';
import {
  deleteScenario,
  findScenario,
  insertScenario,
  lockScenario,
  nameTaken,
  projectScenariosQuery,
  updateScenario,
} from './seeds.repo.ts';
import type { CreateScenarioBody, EditScenarioBody } from './seeds.schemas.ts';

const RESOURCE = 'Seed scenario';

export type SeedsService = ReturnType<typeof createSeedsService>;

/** What an approval of a run binds: the definition and the seed. */
function contentHash(scenario: SeedScenario): string {
  return createHash('sha256')
    .update(canonicalJson({ definition: scenario.definition, seed: Number(scenario.seed) }))
    .digest('hex');
}

export function createSeedsService(deps: {
  db: Db;
  audit: AuditService;
  connections: Pick<ConnectionsService, 'findById' | 'withTarget'>;
  gate: Pick<ApprovalGate, 'voidApprovals' | 'gate'>;
  runs: Pick<RunsService, 'create' | 'enqueue'>;
  now: () => Date;
}) {
  const { db, audit, connections, gate, runs, now } = deps;

  async function load(actor: Actor, id: string, action: Action): Promise<SeedScenario> {
    const scenario = await findScenario(db, actor.principal.orgId, id);
    if (!scenario) throw notFound(RESOURCE);
    try {
      await requireProject(db, actor, scenario.project_id, action, { connectionId: scenario.connection_id });
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw notFound(RESOURCE);
      throw error;
    }
    return scenario;
  }

  async function connectionOf(scenario: SeedScenario): Promise<Connection> {
    const connection = await connections.findById(scenario.connection_id);
    if (!connection) throw notFound('Connection');
    return connection;
  }

  /** The definition planned against the connection's schema as it is now; 422 naming every problem. */
  async function planned(
    connection: Connection,
    definition: SeedDefinition,
  ): Promise<{ plan: SeedPlan; model: SchemaModel }> {
    const { model, populated } = await connections.withTarget(connection, async (handle) => ({
      model: await handle.introspect(),
      populated: await populatedTables(handle),
    }));
    const { problems, plan } = planSeed(model, definition, (key) => populated.has(key));
    if (!plan)
      throw new AppError(
        'validation',
        problems.map((p) => ({ loc: ['body', ...p.loc], msg: p.msg, type: p.type })),
      );
    return { plan, model };
  }

  function event(action: string, scenario: SeedScenario, details?: Record<string, unknown>) {
    return {
      action,
      projectId: scenario.project_id,
      target: { type: 'seed_scenario', id: scenario.id, label: scenario.name },
      details,
    };
  }

  const summary = (definition: SeedDefinition) => ({
    tables: definition.tables.length,
    rows: definition.tables.reduce((n, t) => n + t.rows, 0),
  });

  return {
    async create(actor: Actor, body: CreateScenarioBody): Promise<SeedScenario> {
      await requireProject(db, actor, body.project_id, 'seed.create', { connectionId: body.connection_id });
      const { connection } = await requireConnection(db, actor, body.connection_id, 'seed.create').catch(
        (error) => {
          if (error instanceof AppError && error.code === 'not_found')
            throw invalid(['body', 'connection_id'], 'Connection not found in this project', 'not_found');
          throw error;
        },
      );
      if (connection.project_id !== body.project_id)
        throw invalid(['body', 'connection_id'], 'Connection not found in this project', 'not_found');
      await planned(connection, body.definition);
      const at = now();
      return db.transaction().execute(async (trx) => {
        if (await nameTaken(trx, body.project_id, body.name))
          throw conflict(`A seed scenario named "${body.name}" already exists in this project`);
        const scenario = await insertScenario(trx, {
          id: randomUUID(),
          org_id: actor.principal.orgId,
          project_id: body.project_id,
          connection_id: connection.id,
          name: body.name,
          definition: JSON.stringify(body.definition),
          seed: body.seed,
          created_by: actor.principal.userId,
          created_at: at,
          updated_at: at,
        });
        await audit.record(trx, actor, event('seed_scenario.create', scenario, summary(body.definition)));
        return scenario;
      });
    },

    async list(actor: Actor, projectId: string, page: PageRequest) {
      await requireProject(db, actor, projectId, 'seed.read');
      return paginate(projectScenariosQuery(db, projectId), page);
    },

    get: (actor: Actor, id: string) => load(actor, id, 'seed.read'),

    /** Renames, replaces the definition (checked again) or the seed; either of those voids approvals. */
    async edit(actor: Actor, id: string, body: EditScenarioBody): Promise<SeedScenario> {
      const current = await load(actor, id, 'seed.edit');
      if (body.definition !== undefined) await planned(await connectionOf(current), body.definition);
      return db.transaction().execute(async (trx) => {
        const locked = await lockScenario(trx, id);
        if (!locked) throw notFound(RESOURCE);
        if (body.name !== undefined && (await nameTaken(trx, locked.project_id, body.name, id)))
          throw conflict(`A seed scenario named "${body.name}" already exists in this project`);
        const updated = await updateScenario(trx, id, {
          name: body.name ?? locked.name,
          ...(body.definition !== undefined && { definition: JSON.stringify(body.definition) }),
          ...(body.seed !== undefined && { seed: body.seed }),
          updated_at: now(),
        });
        const changed = body.definition !== undefined || body.seed !== undefined;
        const voided = changed ? await gate.voidApprovals(trx, actor, id) : 0;
        await audit.record(
          trx,
          actor,
          event('seed_scenario.update', updated, {
            definition_changed: body.definition !== undefined,
            seed_changed: body.seed !== undefined,
            approvals_voided: voided,
          }),
        );
        return updated;
      });
    },

    async remove(actor: Actor, id: string): Promise<void> {
      await load(actor, id, 'seed.delete');
      await db.transaction().execute(async (trx) => {
        const locked = await lockScenario(trx, id);
        if (!locked) throw notFound(RESOURCE);
        await gate.voidApprovals(trx, actor, id);
        await deleteScenario(trx, id);
        await audit.record(trx, actor, event('seed_scenario.delete', locked));
      });
    },

    /** The first rows a run would write to each table; nothing is written. */
    async preview(actor: Actor, id: string) {
      const scenario = await load(actor, id, 'seed.preview');
      const connection = await connectionOf(scenario);
      const { plan, model } = await planned(connection, scenario.definition);
      return {
        tables: await connections.withTarget(connection, (handle) =>
          previewPlan(handle, model, plan, Number(scenario.seed)),
        ),
      };
    },

    /**
     * Seeds the scenario's connection, as a run. A definition that no longer fits the schema is
     * refused before anything is queued (422); where the policy says so the run waits for approval,
     * bound to the definition and the seed.
     */
    async run(actor: Actor, id: string): Promise<Run> {
      const scenario = await load(actor, id, 'seed.run');
      const connection = await connectionOf(scenario);
      await planned(connection, scenario.definition);
      const params: SeedRunParams = { scenario_id: scenario.id, connection_id: connection.id };
      const created = await db.transaction().execute(async (trx) => {
        const verdict = await gate.gate(trx, actor, {
          projectId: scenario.project_id,
          operation: 'seed_run',
          writesTo: connection,
          subjectId: scenario.id,
          contentHash: contentHash(scenario),
        });
        const made = await runs.create(trx, actor, {
          projectId: scenario.project_id,
          kind: 'seed_run',
          subjectId: scenario.id,
          unit: 'rows',
          params: params as unknown as Record<string, unknown>,
          awaitingApprovalId: verdict.decision === 'await' ? verdict.approvalId : null,
        });
        await audit.record(trx, actor, event('seed.run', scenario, { run_id: made.id, status: made.status }));
        return made;
      });
      await runs.enqueue(created);
      return created;
    },
  };
}

// Seed scenarios (docs/contract.md §9.1): a definition for one connection of a project, checked against the live
// schema of the connection when saved (engine/seed/plan.ts: 422 naming every problem), listed,
// read, edited (a new definition or seed voids the approvals bound to the old one) and deleted;
// the preview plans and shows the first rows, nothing written; the run (seed-run.ts) waits for
// approval where the project policy or a protected connection says so.
import { createHash } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { AppError, invalid } from '../../core/errors.ts';
import { countOf } from '../../core/plural.ts';
import { canonicalJson } from '../../engine/anonymize/keyed.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { type SeedDefinition, ValueRefused } from '../../engine/seed/definition.ts';
import { planSeed } from '../../engine/seed/plan.ts';
import type { SeedPlan } from '../../engine/seed/seed-plan.ts';
import type { Db } from '../../store/db.ts';
import type { Connection, Run, SeedScenario } from '../../store/tables.ts';
import type { ApprovalGate } from '../approvals/approval-gate.ts';
import { summarize } from '../approvals/approval-subject.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { createConnectionConfigs } from '../connections/connection-configs.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import type { RunsService } from '../runs/runs.service.ts';
import { previewPlan } from './seed-preview.ts';
import type { SeedRunParams } from './seed-run.ts';
import { populatedTables } from './seed-target.ts';
import type { CreateScenarioBody, EditScenarioBody } from './seeds.schemas.ts';

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
  gate: Pick<ApprovalGate, 'voidApprovals'>;
  runs: Pick<RunsService, 'start'>;
  now: () => Date;
}) {
  const { connections, runs } = deps;
  const scenarios = createConnectionConfigs(deps, {
    table: 'seed_scenarios',
    resource: 'Seed scenario',
    auditType: 'seed_scenario',
    nameTaken: (name) => `A seed scenario named "${name}" already exists in this project`,
    actions: { create: 'seed.create', read: 'seed.read', edit: 'seed.edit', delete: 'seed.delete' },
  });
  const { load, connectionOf, event } = scenarios;

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

  const summary = (definition: SeedDefinition) => ({
    tables: definition.tables.length,
    rows: definition.tables.reduce((n, t) => n + t.rows, 0),
  });

  return {
    async create(actor: Actor, body: CreateScenarioBody): Promise<SeedScenario> {
      const connection = await scenarios.connectionForCreate(actor, body);
      await planned(connection, body.definition);
      return scenarios.create(
        actor,
        { projectId: body.project_id, connectionId: connection.id, name: body.name },
        { definition: JSON.stringify(body.definition), seed: body.seed },
        () => summary(body.definition),
      );
    },

    list: scenarios.list,
    get: scenarios.get,

    /** Renames, replaces the definition (checked again) or the seed; either of those voids approvals. */
    async edit(actor: Actor, id: string, body: EditScenarioBody): Promise<SeedScenario> {
      const current = await load(actor, id, 'seed.edit');
      if (body.definition !== undefined) await planned(await connectionOf(current), body.definition);
      return scenarios.update(actor, id, {
        name: body.name,
        changes: () => ({
          ...(body.definition !== undefined && { definition: JSON.stringify(body.definition) }),
          ...(body.seed !== undefined && { seed: body.seed }),
        }),
        contentChanged: body.definition !== undefined || body.seed !== undefined,
        details: { definition_changed: body.definition !== undefined, seed_changed: body.seed !== undefined },
      });
    },

    remove: scenarios.remove,

    /** The first rows a run would write to each table; nothing is written. */
    async preview(actor: Actor, id: string) {
      const scenario = await load(actor, id, 'seed.preview');
      const connection = await connectionOf(scenario);
      const { plan, model } = await planned(connection, scenario.definition);
      try {
        return await connections.withTarget(connection, (handle) =>
          previewPlan(handle, model, plan, Number(scenario.seed)),
        );
      } catch (error) {
        if (error instanceof ValueRefused)
          throw invalid(
            ['definition', 'tables', error.table, 'columns', error.column],
            error.message,
            'value_error',
          );
        throw error;
      }
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
      return runs.start(actor, {
        projectId: scenario.project_id,
        kind: 'seed_run',
        subject: {
          kind: 'seed_scenario',
          id: scenario.id,
          title: scenario.name,
          summary: summarize(
            scenario.definition.tables.map((t) => `${t.table}: ${countOf(t.rows, 'row')}`).join(', ') +
              ` (seed ${scenario.seed})`,
          ),
        },
        params,
        contentHash: contentHash(scenario),
        unit: 'rows',
        audit: event('seed.run', scenario),
      });
    },
  };
}

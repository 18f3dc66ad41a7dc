// The run handler of `seed_run` (docs/contract.md §9.1): plans the scenario against the connection's schema as
// it is now (a scenario that no longer fits fails the run naming why, nothing written), reads what
// the plan needs of the target (seed-target.ts) and writes every table in one transaction
// (seed-load.ts). Progress is in rows; a cancellation stops between batches and rolls back. Just
// before the COMMIT the run reports its transaction's id, so that a run whose process dies is told
// by seed-interrupted.ts whether it seeded everything or nothing (a retry would seed twice).
import { type Static, Type } from 'typebox';
import { AppError, notFound } from '../../core/errors.ts';
import { TargetError } from '../../dialects/errors.ts';
import { ValueRefused } from '../../engine/seed/definition.ts';
import { planSeed } from '../../engine/seed/plan.ts';
import { SeedImpossible } from '../../engine/seed/table-rows.ts';
import { Uuid } from '../../http/schemas.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { RunCancelled, type RunContext, RunFailed } from '../runs/run-handler.ts';
import { runParams } from '../runs/run-kinds.ts';
import { openTransactionId } from '../runs/transaction-outcome.ts';
import { loadPlan, OrphanRows } from './seed-load.ts';
import { populatedTables, readSeedInputs } from './seed-target.ts';
import { findScenarioById } from './seeds.repo.ts';

/** Progress is written at most this often. */
const PROGRESS_EVERY_MS = 250;

/** What the run works from (seeds.service.ts). */
export const SeedRunParams = Type.Object({ scenario_id: Uuid, connection_id: Uuid });
export type SeedRunParams = Static<typeof SeedRunParams>;

export function createSeedRun(deps: {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
}) {
  const { db, connections } = deps;
  return async function seedRun(run: Run, context: RunContext): Promise<Record<string, unknown>> {
    const params = runParams(SeedRunParams, run);
    const scenario = await findScenarioById(db, params.scenario_id);
    if (!scenario) throw new RunFailed('The seed scenario was deleted; nothing was written', {});
    const connection = await connections.findById(scenario.connection_id);
    if (!connection) throw notFound('Connection');
    const empty = { tables: [], rows_total: 0 };
    return connections.withTarget(connection, async (handle) => {
      const dialect = handle.sql;
      try {
        // Everything is read before the run's own session is taken: holding it while another read
        // takes a session of the same pool could wait on a session only another run can free.
        const model = await handle.introspect();
        const populated = await populatedTables(handle);
        const { problems, plan } = planSeed(model, scenario.definition, (key) => populated.has(key));
        if (!plan)
          throw new RunFailed(
            `The scenario no longer fits the schema: ${problems.map((p) => p.msg).join('; ')}; nothing was written`,
            empty,
          );
        const seeded = await readSeedInputs(handle, model, plan, Number(scenario.seed), populated);
        const total =
          plan.tables.reduce((n, t) => n + t.rows, 0) +
          plan.tables.filter((t) => t.references.some((r) => r.deferred)).reduce((n, t) => n + t.rows, 0);
        let done = 0;
        let last = 0;
        await context.progress(0, total);
        const session = await handle.rowSession();
        try {
          const tables = await loadPlan({
            session,
            dialect,
            plan,
            seeded,
            committing: async (tables) =>
              context.report({
                tables,
                rows_total: tables.reduce((n, t) => n + t.rows, 0),
                committing: { transaction: await openTransactionId(session, dialect) },
              }),
            progress: {
              async batch(rows) {
                done += rows;
                if (Date.now() - last >= PROGRESS_EVERY_MS) {
                  last = Date.now();
                  // Where a cancellation stops the run: between batches, everything rolls back.
                  await context.progress(done, total);
                }
              },
            },
          });
          await context.progress(total, total);
          return { tables, rows_total: tables.reduce((n, t) => n + t.rows, 0) };
        } finally {
          await session.close();
        }
      } catch (error) {
        if (error instanceof RunCancelled || error instanceof RunFailed) throw error;
        if (error instanceof SeedImpossible || error instanceof ValueRefused)
          throw new RunFailed(`${error.message}; nothing was written`, empty);
        if (error instanceof TargetError || error instanceof AppError || error instanceof OrphanRows)
          throw new RunFailed(`The seed run failed and wrote nothing: ${error.message}`, empty);
        throw error;
      }
    });
  };
}

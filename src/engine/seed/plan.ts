// The seed planner (docs/contract.md §9.1), pure: a definition checked against the schema model and turned into
// the tables to fill in foreign-key order, each column's generator (given or inferred), the keys
// the service writes, the unique keys to keep, and where a cycle of foreign keys is broken.
// Self-references and cycles are broken at nullable foreign keys: those are written empty and
// filled after every row exists, by set-based UPDATEs joined on the table's primary key. A cycle
// that only NOT NULL keys close, a parent that is neither in the scenario nor already holds rows,
// and everything resolve.ts refuses are problems (422 naming them).
import { parentsFirst } from '../bridge/table-order.ts';
import { findTable } from '../patch/rollback-key.ts';
import type { SchemaModel } from '../schema/model.ts';
import { tableKey } from '../schema/model.ts';
import type { DefinitionProblem, SeedDefinition } from './definition.ts';
import { deferCycles } from './plan-cycles.ts';
import { type LocatedTable, type PlanContext, planTable, referencedKey } from './plan-table.ts';
import type { Populated, SeedPlan } from './seed-plan.ts';

export function planSeed(
  model: SchemaModel,
  definition: SeedDefinition,
  populated: Populated,
): { problems: DefinitionProblem[]; plan: SeedPlan | null } {
  const problems: DefinitionProblem[] = [];
  const located = locateTables(model, definition, problems);
  const referenced = new Set(
    model.tables.flatMap((t) =>
      t.foreign_keys.map((fk) => `${referencedKey(t, fk)}\u0000${fk.referenced_columns.join(',')}`),
    ),
  );
  const context: PlanContext = {
    model,
    located,
    populated,
    referenced,
    problems,
    locale: definition.locale ?? 'en',
  };
  const planned = [...located].map(([key, table]) => planTable(context, key, table));
  problems.push(...deferCycles(planned, (key) => located.get(key)!.at));
  if (problems.length > 0) return { problems, plan: null };

  const byKey = new Map(planned.map((p) => [p.key, p]));
  const order = parentsFirst(
    planned.map((p) => ({
      key: p.key,
      parents: p.references.filter((r) => !r.deferred).map((r) => r.parent),
    })),
  );
  const outsideParents = [
    ...new Set(planned.flatMap((p) => p.references.map((r) => r.parent)).filter((k) => !byKey.has(k))),
  ];
  return {
    problems,
    plan: { locale: definition.locale ?? 'en', tables: order.map((k) => byKey.get(k)!), outsideParents },
  };
}

/** The definition's tables found in the model, by key; unknown and repeated ones are problems. */
function locateTables(
  model: SchemaModel,
  definition: SeedDefinition,
  problems: DefinitionProblem[],
): Map<string, LocatedTable> {
  const located = new Map<string, LocatedTable>();
  definition.tables.forEach((spec, at) => {
    const loc = ['definition', 'tables', at, 'table'];
    const table = findTable(model, spec.table);
    if (!table) problems.push({ loc, msg: `Unknown table ${spec.table}`, type: 'unknown_table' });
    else if (located.has(tableKey(table)))
      problems.push({ loc, msg: `${tableKey(table)} is listed twice`, type: 'duplicate' });
    else located.set(tableKey(table), { at, table, spec });
  });
  return located;
}

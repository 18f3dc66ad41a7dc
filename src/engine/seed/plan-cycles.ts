// Cycles of foreign keys in a seed plan. Every nullable reference inside a strongly connected
// component of the scenario's reference graph is deferred (written empty, filled by an UPDATE once
// every row exists); what stays must be acyclic, or the NOT NULL keys that close a cycle are refused.
import { stronglyConnectedComponents } from '../components.ts';
import type { DefinitionProblem } from './definition.ts';
import type { PlannedTable } from './seed-plan.ts';

/**
 * Marks the references a cycle is broken at (`deferred`) and returns what cannot be broken.
 * `at`: where each table stands in the definition, for the problems' locations.
 */
export function deferCycles(planned: PlannedTable[], at: (key: string) => number): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const byKey = new Map(planned.map((p) => [p.key, p]));
  const edges = new Map(
    planned.map((p) => [
      p.key,
      new Set(p.references.filter((r) => byKey.has(r.parent)).map((r) => r.parent)),
    ]),
  );
  for (const component of stronglyConnectedComponents([...byKey.keys()], edges)) {
    const members = new Set(component);
    const cyclic = component.length > 1 || edges.get(component[0]!)?.has(component[0]!);
    if (!cyclic) continue;
    for (const key of component) {
      const p = byKey.get(key)!;
      for (const r of p.references)
        if (members.has(r.parent) && r.fk.columns.every((c) => p.seedColumns.get(c)?.column.nullable))
          r.deferred = true;
      if (p.references.some((r) => r.deferred) && p.primaryKey.length === 0)
        problems.push({
          loc: ['definition', 'tables', at(key), 'table'],
          msg: `${key} closes a cycle of foreign keys but has no primary key to fill it by`,
          type: 'cycle_without_key',
        });
    }
    const strict = new Map(
      component.map((k) => [
        k,
        new Set(
          byKey
            .get(k)!
            .references.filter((r) => !r.deferred && members.has(r.parent))
            .map((r) => r.parent),
        ),
      ]),
    );
    for (const inner of stronglyConnectedComponents(component, strict))
      if (inner.length > 1 || strict.get(inner[0]!)?.has(inner[0]!))
        problems.push({
          loc: ['definition', 'tables'],
          msg: `The NOT NULL foreign keys of ${inner.sort().join(', ')} form a cycle: no row could be written first (make one of them nullable, or seed one table after filling the other)`,
          type: 'not_null_cycle',
        });
  }
  return problems;
}

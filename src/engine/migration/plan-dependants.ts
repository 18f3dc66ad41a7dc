// The objects that must step aside while something they read is swapped away and back, found
// from the catalog's dependency edges: views (and the views over them, to any depth), routines
// that take, return or read it, and the triggers that call those routines. Used where the planner
// knows what is swapped but not through the table plan: an enum value added forward is removed by
// its rollback, a swap of the whole type that PostgreSQL refuses under a view or a function.
import type { SchemaModel } from '../schema/model.ts';
import {
  type DependencyRef,
  dependencyKey,
  objectKey,
  type RoutineModel,
  type ViewModel,
} from '../schema/objects.ts';
import { dependencyOrder } from './dependency-order.ts';
import { type Dependants, ref } from './operations.ts';
import { columnNodeKey, heldRowTypes } from './plan-graph.ts';

const reads = (refs: DependencyRef[], broken: Set<string>) =>
  refs.some(
    (ref) =>
      broken.has(dependencyKey(ref)) ||
      (ref.column !== null && broken.has(columnNodeKey({ schema: ref.schema, name: ref.name }, ref.column))),
  );

/** What in `model` reads one of the `broken` keys (dependencyKey or `col:` form), transitively. */
export function dependantsOf(model: SchemaModel, broken: Set<string>): Dependants {
  const seen = new Set(broken);
  const views = new Map<string, ViewModel>();
  const routines = new Map<string, RoutineModel>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const routine of model.routines ?? []) {
      const key = `routine:${objectKey(routine)}`;
      const holdsRows = heldRowTypes(routine).some((rowType) => seen.has(rowType));
      if (routines.has(key) || !(reads(routine.depends_on, seen) || holdsRows)) continue;
      routines.set(key, routine);
      seen.add(key);
      grew = true;
    }
    for (const view of model.views ?? []) {
      const key = `rel:${objectKey(view)}`;
      if (views.has(key) || !reads(view.depends_on, seen)) continue;
      views.set(key, view);
      seen.add(key);
      seen.add(`type:${objectKey(view)}`);
      grew = true;
    }
  }
  const ordered = dependencyOrder(
    [...views.values()],
    (view) => `rel:${objectKey(view)}`,
    (view) => view.depends_on.map(dependencyKey),
  );
  const routineList = dependencyOrder(
    [...routines.values()],
    (routine) => `routine:${objectKey(routine)}`,
    (routine) => routine.depends_on.map(dependencyKey),
  );
  const triggers = (model.triggers ?? []).filter((trigger) => reads(trigger.depends_on, seen));
  // A policy's expressions read its table's columns (the catalog does not say which).
  const policies = model.tables.flatMap((table) =>
    table.columns.some((column) => seen.has(columnNodeKey(table, column.name)))
      ? (table.policies ?? []).map((policy) => ({ table: ref(table), policy }))
      : [],
  );
  return { views: ordered, routines: routineList, triggers, ...(policies.length > 0 ? { policies } : {}) };
}

export const hasDependants = (d: Dependants) =>
  d.views.length + d.routines.length + d.triggers.length + (d.policies?.length ?? 0) > 0;

// Which key tables the parent closure of a subset (src/modules/bridge/bridge-subset.ts) may still grow, decided before
// it runs: a leaf can be read through its parent's key table only if that table holds, when the leaf
// is read, exactly the rows it held after the child closure. Pure: it plays the closure's own rule
// (a parent pass along an edge runs when the child's kept rows came in some other way than along
// that edge) as if every pass found rows, so it may only answer too much, never too little.
import type { ForeignKeyModel } from '../schema/model.ts';
import type { PlannedTable } from './copy-plan.ts';

/** A foreign key between two copied tables, as the subset's closures walk it. */
export interface Edge {
  child: PlannedTable;
  parent: PlannedTable;
  fk: ForeignKeyModel;
}

/**
 * The tables that may gain rows in the parent closure, given how each table's kept rows came in
 * after the child closure (`start`, `child:<edge index>`).
 */
export function mayGrowInParentClosure(
  edges: readonly Edge[],
  origins: ReadonlyMap<string, ReadonlySet<string>>,
): Set<string> {
  const growing = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const [index, e] of edges.entries()) {
      if (growing.has(e.parent.name)) continue;
      // Rows pulled in as parents came in along no child edge: a pass from them is always due.
      const cameOtherwise =
        growing.has(e.child.name) ||
        [...(origins.get(e.child.name) ?? [])].some((origin) => origin !== `child:${index}`);
      if (cameOtherwise) {
        growing.add(e.parent.name);
        changed = true;
      }
    }
  }
  return growing;
}

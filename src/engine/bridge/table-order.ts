// The order a copy loads its tables in (docs/contract.md §9.3): parents before the tables that reference them,
// so that even a target whose keys stay checked sees every referenced row first. Cycles (and
// self-references) cannot be ordered; their tables keep the order they came in, after what they
// depend on outside the cycle, and the load relies on keys being off for them. Pure.

export interface OrderNode {
  key: string;
  /** Keys of the tables this one references (other than itself). */
  parents: string[];
}

/** The keys, parents first; stable for tables that do not depend on each other. */
export function parentsFirst(nodes: OrderNode[]): string[] {
  const known = new Set(nodes.map((n) => n.key));
  const pending = new Map(
    nodes.map((n) => [n.key, new Set(n.parents.filter((p) => p !== n.key && known.has(p)))]),
  );
  const order: string[] = [];
  while (pending.size > 0) {
    const ready = [...pending.keys()].filter((key) => pending.get(key)!.size === 0);
    // A cycle: take the first remaining table in the given order and go on.
    const next = ready.length > 0 ? ready : [[...pending.keys()][0]!];
    for (const key of next) {
      order.push(key);
      pending.delete(key);
      for (const parents of pending.values()) parents.delete(key);
    }
  }
  return order;
}

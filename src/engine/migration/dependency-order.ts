// Dependency order for objects that read one another (views on views, triggers on functions): a
// topological sort that puts what an object depends on before it. A cycle cannot be created in one
// go by any order; it is broken deliberately where the given order first enters it (the rest stays in order), so the
// plan is still deterministic and the server's error names the object.

/**
 * `items` in an order where each comes after the items it depends on (`dependsOn` gives the keys
 * it reads; keys outside `items` are ignored). Otherwise the given order is kept, and a cycle is
 * broken where the given order first enters it.
 */
export function dependencyOrder<T>(
  items: T[],
  key: (item: T) => string,
  dependsOn: (item: T) => string[],
): T[] {
  const byKey = new Map(items.map((item) => [key(item), item]));
  const keys = [...byKey.keys()];
  const done = new Set<string>();
  const visiting = new Set<string>();
  const out: T[] = [];
  const visit = (k: string) => {
    if (done.has(k) || visiting.has(k)) return; // visiting: a cycle, broken here
    visiting.add(k);
    for (const dep of new Set(dependsOn(byKey.get(k)!))) if (byKey.has(dep) && dep !== k) visit(dep);
    visiting.delete(k);
    done.add(k);
    out.push(byKey.get(k)!);
  };
  for (const k of keys) visit(k);
  return out;
}

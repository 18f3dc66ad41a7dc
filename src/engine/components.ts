// Strongly connected components of a directed graph of named nodes (Tarjan): the groups in which
// every node reaches every other. Seeds find the foreign-key cycles they must break with it, and
// the shape test the import cycles it forbids.

/** Every component, singletons included, each listed once; `edges` maps a node to its successors. */
export function stronglyConnectedComponents(
  nodes: Iterable<string>,
  edges: ReadonlyMap<string, Iterable<string>>,
): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    out.push(component);
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return out;
}

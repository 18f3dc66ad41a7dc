// The JSON paths the `json` transformer takes: `$`, then `.name`, `['name']`, `[index]` and `[*]`
// (every element or member). A small, closed subset of JSONPath: enough to reach a value in a
// document, with no filters or recursion whose cost depends on the data.

export type PathStep = { key: string } | { index: number } | { all: true };

const STEP =
  /^(?:\.([A-Za-z_$][\w$-]*)|\.\*|\[(\d+)\]|\[\*\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\])/;

/** The steps of a path, or null when it is not one this subset reads. */
export function parseJsonPath(path: string): PathStep[] | null {
  if (!path.startsWith('$')) return null;
  const steps: PathStep[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    const m = STEP.exec(rest);
    if (!m) return null;
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ key: m[3].replace(/\\(.)/g, '$1') });
    else if (m[4] !== undefined) steps.push({ key: m[4].replace(/\\(.)/g, '$1') });
    else steps.push({ all: true });
    rest = rest.slice(m[0].length);
  }
  return steps.length > 0 ? steps : null;
}

/** `doc` with `edit` applied to every value the steps reach; what they do not reach is left alone. */
export function editAt(doc: unknown, steps: readonly PathStep[], edit: (value: unknown) => unknown): unknown {
  const [step, ...rest] = steps;
  if (!step) return edit(doc);
  if (doc === null || typeof doc !== 'object') return doc;
  if ('all' in step) {
    if (Array.isArray(doc)) return doc.map((v) => editAt(v, rest, edit));
    return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, editAt(v, rest, edit)]));
  }
  if ('index' in step) {
    if (!Array.isArray(doc) || step.index >= doc.length) return doc;
    const copy = doc.slice();
    copy[step.index] = editAt(doc[step.index], rest, edit);
    return copy;
  }
  if (Array.isArray(doc) || !Object.hasOwn(doc, step.key)) return doc;
  return { ...doc, [step.key]: editAt((doc as Record<string, unknown>)[step.key], rest, edit) };
}

// Table-level changes the diff added with model version 2: partitioning (key, parent and bound),
// inheritance parents, the validity of checks and foreign keys (NOT VALID), identity options.
// One-line renderings, compared as text like describe.ts's.
import type { SequenceOptions, TableModel } from './model.ts';
import { CHANGE_SEVERITY } from './severity.ts';

const name = (t: { schema: string | null; name: string }) =>
  t.schema === null ? t.name : `${t.schema}.${t.name}`;

export function describePartitioning(table: TableModel): string | null {
  const p = table.partitioning;
  if (!p) return null;
  const parts: string[] = [];
  if (p.parent) parts.push(`PARTITION OF ${name(p.parent)} ${p.bound ?? ''}`.trim());
  if (p.key) parts.push(`PARTITION BY ${p.key}`);
  return parts.join(' ');
}

export function describeInherits(table: TableModel): string | null {
  const parents = table.inherits ?? [];
  return parents.length === 0 ? null : `INHERITS (${parents.map(name).join(', ')})`;
}

export function describeSequenceOptions(o: SequenceOptions): string {
  return (
    `${o.data_type} START ${o.start} INCREMENT ${o.increment} MINVALUE ${o.min_value}` +
    ` MAXVALUE ${o.max_value} CACHE ${o.cache}${o.cycle ? ' CYCLE' : ' NO CYCLE'}`
  );
}

/** Checks and foreign keys present on both sides whose NOT VALID flag differs. */
export function diffValidity(from: TableModel, to: TableModel) {
  const out: {
    kind: 'constraint_validity_changed';
    object: string;
    from: string;
    to: string;
    severity: 'minor';
  }[] = [];
  const state = (notValid: boolean | undefined) => (notValid ? 'NOT VALID' : 'VALID');
  const pairs: [string, boolean | undefined, boolean | undefined][] = [];
  for (const c of to.check_constraints) {
    const old = from.check_constraints.find((x) => x.name === c.name);
    if (old) pairs.push([c.name, old.not_valid, c.not_valid]);
  }
  for (const k of to.foreign_keys) {
    const old = from.foreign_keys.find((x) => x.name === k.name);
    if (old) pairs.push([k.name, old.not_valid, k.not_valid]);
  }
  for (const [object, a, b] of pairs)
    if (!!a !== !!b)
      out.push({
        kind: 'constraint_validity_changed',
        object,
        from: state(a),
        to: state(b),
        severity: CHANGE_SEVERITY.constraint_validity_changed,
      });
  return out;
}

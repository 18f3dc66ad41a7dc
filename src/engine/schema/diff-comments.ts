// Comments on a table's constraints and indexes (PostgreSQL, model version 3), compared by name
// apart from their definitions: a comment that changes is a comment change, never a constraint
// dropped and added. A constraint or index only one side has is reported by its own diff.
import type { TableModel } from './model.ts';
import { CHANGE_SEVERITY } from './severity.ts';

type Commented = { name: string; comment?: string | null };

export function constraintsOf(table: TableModel): Commented[] {
  return [
    ...(table.primary_key ? [table.primary_key] : []),
    ...table.unique_constraints,
    ...table.check_constraints,
    ...table.exclusion_constraints,
    ...table.foreign_keys,
  ];
}

export function diffComments(from: TableModel, to: TableModel) {
  const out: {
    kind: 'constraint_comment_changed' | 'index_comment_changed';
    object: string;
    from: string | null;
    to: string | null;
    severity: 'minor';
  }[] = [];
  const compare = (
    kind: 'constraint_comment_changed' | 'index_comment_changed',
    before: Commented[],
    after: Commented[],
  ) => {
    const old = new Map(before.map((item) => [item.name, item.comment ?? null]));
    for (const item of after) {
      if (!old.has(item.name)) continue;
      const [a, b] = [old.get(item.name) ?? null, item.comment ?? null];
      if (a !== b) out.push({ kind, object: item.name, from: a, to: b, severity: CHANGE_SEVERITY[kind] });
    }
  };
  compare('constraint_comment_changed', constraintsOf(from), constraintsOf(to));
  compare('index_comment_changed', from.indexes, to.indexes);
  return out;
}

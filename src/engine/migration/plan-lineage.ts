// A table's place in a partition tree or an inheritance tree, changed in place: ATTACH or DETACH
// PARTITION for a table that becomes or stops being a partition of a partitioned table both sides
// have (with another bound: detached and attached again), INHERIT / NO INHERIT for inheritance
// parents. A table whose own partitioning key changes is rebuilt by the planner (rebuild_table);
// the note below is for the case it cannot rebuild (a partition whose own key changes).
import { describePartitioning } from '../schema/diff-lineage.ts';
import { type TableModel, type TableRefModel, tableKey } from '../schema/model.ts';
import { ref } from './operations.ts';
import type { Phases, PlanNote } from './plan-types.ts';

const sameRef = (a: TableRefModel | null | undefined, b: TableRefModel | null | undefined) =>
  (a ?? null) === null ? (b ?? null) === null : b != null && a!.schema === b.schema && a!.name === b.name;

/** The names a partition key mentions (`RANGE (created_at)` → created_at), quotes removed. */
const keyColumns = (key: string) =>
  key
    .replace(/^\w+\s*/, '')
    .split(/[^A-Za-z0-9_$"]+/)
    .map((part) => part.replace(/"/g, ''));

export function planLineage(p: Phases, notes: PlanNote[], from: TableModel, to: TableModel): void {
  const table = ref(to);
  const [a, b] = [from.partitioning ?? null, to.partitioning ?? null];
  if ((a?.key ?? null) !== (b?.key ?? null))
    notes.push({
      object: tableKey(to),
      message: `Its partitioning changes (${describePartitioning(from) ?? 'none'} → ${describePartitioning(to) ?? 'none'}): the table must be rebuilt and its rows copied, which the plan does not do.`,
    });
  const key = b?.key ?? null;
  for (const column of to.columns) {
    const old = from.columns.find((c) => c.name === column.name);
    if (key !== null && old && old.type !== column.type && keyColumns(key).includes(column.name))
      notes.push({
        object: `${tableKey(to)}.${column.name}`,
        message: 'The column is part of the partition key: the server refuses to change its type.',
      });
  }
  const parentA = a?.parent ?? null;
  const parentB = b?.parent ?? null;
  if (!sameRef(parentA, parentB) || (parentA !== null && a?.bound !== b?.bound)) {
    if (parentA !== null)
      p.dropKeys.push({ kind: 'detach_partition', table, parent: parentA, bound: a?.bound ?? '' });
    if (parentB !== null)
      p.addKeys.push({ kind: 'attach_partition', table, parent: parentB, bound: b?.bound ?? '' });
  }
  const before = from.inherits ?? [];
  const after = to.inherits ?? [];
  for (const parent of before)
    if (!after.some((x) => sameRef(x, parent))) p.dropKeys.push({ kind: 'no_inherit', table, parent });
  for (const parent of after)
    if (!before.some((x) => sameRef(x, parent))) p.addKeys.push({ kind: 'inherit', table, parent });
}

// Cycles between a table and a function, broken as pg_dump breaks them. A table whose default,
// check or index calls a function that itself reads the table (a SQL-standard body counting its
// rows, a function returning its rows) cannot be created whole before the function, nor the
// function before the table. So the table is created without those uses, the function after it,
// and the uses added once the function exists; going away, the uses are dropped first, then the
// function, then the table. Each use's rollback is the operation undoing it, in reverse.
import type { TableModel } from '../schema/model.ts';
import { type MigrationOperation, ref } from './operations.ts';

/** What the operations split out read (needs) or read until they run (held), by key. */
export type ExtraEdges = Map<MigrationOperation, { needs: string[]; held: string[] }>;

export interface SplitOperations {
  operations: MigrationOperation[];
  extra: ExtraEdges;
}

type Use = NonNullable<TableModel['routine_uses']>[number];

/** The table without the uses, and the operations that add (or drop) each use apart. */
function withoutUses(table: TableModel, uses: Use[], adding: boolean) {
  const named = (kind: Use['kind'], name: string) => uses.some((u) => u.kind === kind && u.name === name);
  const t = ref(table);
  const apart: MigrationOperation[] = [];
  const columns = table.columns.map((column) => {
    if (!named('default', column.name) || column.default === null) return column;
    const plain = { ...column, default: null, default_normalized: null };
    apart.push(
      adding
        ? { kind: 'alter_column', change: 'set_default', table: t, before: plain, after: column }
        : { kind: 'alter_column', change: 'drop_default', table: t, before: column, after: plain },
    );
    return plain;
  });
  for (const constraint of table.check_constraints)
    if (named('check', constraint.name))
      apart.push({ kind: adding ? 'add_check' : 'drop_check', table: t, constraint });
  for (const index of table.indexes)
    if (named('index', index.name))
      apart.push({ kind: adding ? 'create_index' : 'drop_index', table: t, index, concurrently: false });
  const stripped: TableModel = {
    ...table,
    columns,
    check_constraints: table.check_constraints.filter((c) => !named('check', c.name)),
    indexes: table.indexes.filter((i) => !named('index', i.name)),
    routine_uses: (table.routine_uses ?? []).filter((u) => !uses.includes(u)),
  };
  return { stripped, apart };
}

/**
 * Splits the uses of the tables created or dropped in a cycle with a function they call:
 * `inCycle(at, routineKey)` says whether the operation at `at` and the function's creation (or
 * drop) belong to one cycle. Null when there is none.
 */
export function splitRoutineUses(
  operations: MigrationOperation[],
  inCycle: (at: number, routineKey: string) => boolean,
): SplitOperations | null {
  const extra: ExtraEdges = new Map();
  const out: MigrationOperation[] = [];
  let split = false;
  operations.forEach((op, at) => {
    if (op.kind !== 'create_table' && op.kind !== 'drop_table') {
      out.push(op);
      return;
    }
    const uses = (op.table.routine_uses ?? []).filter((use) => inCycle(at, `routine:${use.routine}`));
    if (uses.length === 0) {
      out.push(op);
      return;
    }
    split = true;
    const adding = op.kind === 'create_table';
    const { stripped, apart } = withoutUses(op.table, uses, adding);
    const routines = uses.map((use) => `routine:${use.routine}`);
    for (const part of apart)
      extra.set(part, adding ? { needs: routines, held: [] } : { needs: [], held: routines });
    if (adding) out.push({ ...op, table: stripped }, ...apart);
    else out.push(...apart, { ...op, table: stripped });
  });
  return split ? { operations: out, extra } : null;
}

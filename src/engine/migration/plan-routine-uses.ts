// Checks, column defaults and indexes that call a function the plan drops and creates again (its
// result or argument list changes): PostgreSQL refuses to drop a function they use, so they step
// aside like the views that call it. Dropped with the views (before the functions change), added
// back as the source has them once the functions exist again; a drop the table plan has already
// moves earlier, an add it has already stays.
import { type SchemaModel, tableKey } from '../schema/model.ts';
import { type MigrationOperation, ref } from './operations.ts';
import type { Phases } from './plan-tables.ts';

export function planRoutineUses(p: Phases, src: SchemaModel, tgt: SchemaModel, broken: Set<string>): void {
  const wanted = new Map(src.tables.map((t) => [tableKey(t), t]));
  const find = (ops: MigrationOperation[], kind: string, key: string, name: string) =>
    ops.findIndex((op) => {
      if (op.kind !== kind || !('table' in op) || tableKey(op.table) !== key) return false;
      if (op.kind === 'drop_check' || op.kind === 'add_check') return op.constraint.name === name;
      if (op.kind === 'drop_index' || op.kind === 'create_index') return op.index.name === name;
      return false;
    });
  const planned = (ops: MigrationOperation[], kind: string, key: string, name: string) =>
    find(ops, kind, key, name) >= 0;
  /** A drop the table plan has already: moved before the functions change; else a new one. */
  const stepAside = (kind: string, key: string, name: string, drop: MigrationOperation) => {
    const at = find(p.dropKeys, kind, key, name);
    p.dropViews.push(at >= 0 ? p.dropKeys.splice(at, 1)[0]! : drop);
  };
  for (const table of tgt.tables) {
    const next = wanted.get(tableKey(table));
    const key = tableKey(table);
    const t = ref(table);
    for (const use of table.routine_uses ?? []) {
      if (!broken.has(`routine:${use.routine}`)) continue;
      if (use.kind === 'check') {
        const check = table.check_constraints.find((c) => c.name === use.name);
        if (!check) continue;
        stepAside('drop_check', key, use.name, { kind: 'drop_check', table: t, constraint: check });
        const again = next?.check_constraints.find((c) => c.name === use.name);
        if (again && !planned(p.addKeys, 'add_check', key, use.name))
          p.addKeys.push({ kind: 'add_check', table: t, constraint: again });
      } else if (use.kind === 'index') {
        const index = table.indexes.find((i) => i.name === use.name);
        if (!index) continue;
        stepAside('drop_index', key, use.name, { kind: 'drop_index', table: t, index, concurrently: false });
        const again = next?.indexes.find((i) => i.name === use.name);
        if (again && !planned(p.indexes, 'create_index', key, use.name))
          p.indexes.push({ kind: 'create_index', table: t, index: again, concurrently: false });
      } else {
        const column = table.columns.find((c) => c.name === use.name);
        if (!column || column.default === null) continue;
        const plain = { ...column, default: null, default_normalized: null };
        p.dropViews.push({
          kind: 'alter_column',
          change: 'drop_default',
          table: t,
          before: column,
          after: plain,
        });
        const again = next?.columns.find((c) => c.name === use.name);
        if (again && again.default !== null)
          p.late.push({
            kind: 'alter_column',
            change: 'set_default',
            table: t,
            before: plain,
            after: { ...plain, default: again.default, default_normalized: again.default_normalized },
          });
      }
    }
  }
}

// PostgreSQL refuses to retype (or re-collate) a column a stored generated column reads. Such a
// generated column steps aside: one the plan drops anyway is dropped before the retype, one that
// stays is dropped before and added back (as the source has it) after the table's column steps.
// Which columns an expression reads is told by the column's name appearing in it, bare or quoted:
// a false match only costs a recomputed column.
import { type TableModel, tableKey } from '../schema/model.ts';
import type { MigrationOperation } from './operations.ts';
import type { Phases } from './plan-tables.ts';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function reads(expression: string, column: string): boolean {
  const quoted = `"${column.replace(/"/g, '""')}"`;
  if (expression.includes(quoted)) return true;
  return new RegExp(`(^|[^\\w"$])${escapeRegExp(column)}($|[^\\w"$])`).test(expression);
}

export function generatedStepAside(
  p: Phases,
  targetTables: Map<string, TableModel>,
  sourceTables: Map<string, TableModel>,
): void {
  const retyped = new Map<string, Set<string>>();
  for (const op of p.columns)
    if (op.kind === 'alter_column' && op.change === 'type') {
      const key = tableKey(op.table);
      retyped.set(key, (retyped.get(key) ?? new Set()).add(op.before.name));
    }
  for (const [key, columns] of retyped) {
    const before = targetTables.get(key);
    const after = sourceTables.get(key);
    if (!before || !after) continue;
    const stepping = before.columns.filter(
      (g) =>
        g.generated !== null &&
        !columns.has(g.name) &&
        [...columns].some((column) => reads(g.generated!.expression, column)),
    );
    if (stepping.length === 0) continue;
    const onTable = (op: MigrationOperation) => 'table' in op && tableKey(op.table) === key;
    const first = p.columns.findIndex(onTable);
    const drops: MigrationOperation[] = [];
    const adds: MigrationOperation[] = [];
    for (const g of stepping) {
      const isG = (op: MigrationOperation) =>
        onTable(op) &&
        ((op.kind === 'drop_column' && op.column.name === g.name) ||
          (op.kind === 'alter_column' && op.before.name === g.name));
      const dropped = p.dropColumns.findIndex(isG);
      if (dropped >= 0) drops.push(...p.dropColumns.splice(dropped, 1));
      else
        drops.push({
          kind: 'drop_column',
          table: { schema: before.schema, name: before.name },
          column: g,
          backup: null,
          sequences: [],
        });
      // Its own steps are replaced by the add of its source definition.
      p.columns = p.columns.filter((op) => !isG(op));
      const wanted = after.columns.find((c) => c.name === g.name);
      if (wanted && dropped < 0)
        adds.push({ kind: 'add_column', table: { schema: after.schema, name: after.name }, column: wanted });
    }
    p.columns.splice(Math.max(0, first), 0, ...drops);
    let last = -1;
    p.columns.forEach((op, i) => {
      if (onTable(op)) last = i;
    });
    p.columns.splice(last + 1, 0, ...adds);
  }
}

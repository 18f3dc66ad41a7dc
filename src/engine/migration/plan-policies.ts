// Row-level security and its policies (PostgreSQL). A policy's expressions read the table's
// columns, and the server refuses to retype or drop a column a policy uses: the policies of a table
// whose columns the plan breaks step aside like views (dropped before, created after). A changed
// policy is dropped and created (ALTER POLICY cannot change its command or kind). Policies of a
// table that goes are dropped first, so that its rollback creates them again.
import { type SchemaModel, type TableModel, tableKey } from '../schema/model.ts';
import { ref } from './operations.ts';
import type { Phases } from './plan-tables.ts';

const OFF = { enabled: false, forced: false };

export function planPolicies(p: Phases, src: SchemaModel, tgt: SchemaModel, broken: Set<string>): void {
  const wanted = new Map(src.tables.map((t) => [tableKey(t), t]));
  const brokenTable = (table: TableModel) =>
    table.columns.some((c) => broken.has(`col:${tableKey(table)}.${c.name}`)) ||
    broken.has(`rel:${tableKey(table)}`);
  for (const table of tgt.tables) {
    if (table.policies === undefined) continue;
    const next = wanted.get(tableKey(table));
    if (next && next.policies === undefined) continue;
    const redo = brokenTable(table);
    for (const policy of table.policies) {
      const kept = next?.policies?.find((q) => q.name === policy.name);
      if (!kept || redo || JSON.stringify(kept) !== JSON.stringify(policy))
        p.dropTriggers.push({ kind: 'drop_policy', table: ref(table), policy });
    }
  }
  const existing = new Map(tgt.tables.map((t) => [tableKey(t), t]));
  for (const table of src.tables) {
    if (table.policies === undefined) continue;
    const old = existing.get(tableKey(table));
    if (old && old.policies === undefined) continue;
    const redo = old !== undefined && brokenTable(old);
    for (const policy of table.policies) {
      const had = old?.policies?.find((q) => q.name === policy.name);
      if (!had || redo || JSON.stringify(had) !== JSON.stringify(policy))
        p.createTriggers.push({ kind: 'create_policy', table: ref(table), policy });
    }
    const before = old?.row_security ?? OFF;
    const after = table.row_security ?? OFF;
    if (before.enabled !== after.enabled || before.forced !== after.forced)
      p.late.push({ kind: 'set_row_security', table: ref(table), before, after });
  }
  // A table that goes: security switched off first, so that its rollback switches it on again.
  for (const table of tgt.tables)
    if (
      !wanted.has(tableKey(table)) &&
      table.row_security &&
      (table.row_security.enabled || table.row_security.forced)
    )
      p.late.push({ kind: 'set_row_security', table: ref(table), before: table.row_security, after: OFF });
}

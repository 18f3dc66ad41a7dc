// Comments on constraints, indexes, enums and sequences (PostgreSQL) that change while the object
// stays: COMMENT ON, late in the plan. An object the plan creates (or drops and adds again) says
// its comment when it is created (the DDL renderer), so it is left out here.
import { constraintsOf } from '../schema/diff-comments.ts';
import { type SchemaModel, tableKey } from '../schema/model.ts';
import { type MigrationOperation, ref, type TableRef } from './operations.ts';
import type { Phases } from './plan-tables.ts';

const created = (t: TableRef, name: string) => `${tableKey(t)}:${name}`;

/** `table:name` of every constraint and index an operation of the plan creates. */
function createdByPlan(p: Phases): Set<string> {
  const out = new Set<string>();
  for (const op of [...p.createTables, ...p.addKeys, ...p.indexes, ...p.addForeignKeys, ...p.columns]) {
    switch (op.kind) {
      case 'add_primary_key':
      case 'add_foreign_key':
        out.add(created(op.table, op.key.name));
        break;
      case 'add_unique':
      case 'add_check':
      case 'add_exclusion':
        out.add(created(op.table, op.constraint.name));
        break;
      case 'create_index':
        out.add(created(op.table, op.index.name));
        break;
      case 'rebuild_table':
        out.add(`${tableKey(op.after)}:*`);
        break;
    }
  }
  return out;
}

export function planComments(p: Phases, src: SchemaModel, tgt: SchemaModel): void {
  const createdHere = createdByPlan(p);
  const before = new Map(tgt.tables.map((table) => [tableKey(table), table]));
  for (const table of src.tables) {
    const old = before.get(tableKey(table));
    if (!old || createdHere.has(`${tableKey(table)}:*`)) continue;
    const t = ref(table);
    const pass = (
      type: 'constraint' | 'index',
      was: { name: string; comment?: string | null }[],
      now: { name: string; comment?: string | null }[],
    ) => {
      const comments = new Map(was.map((item) => [item.name, item.comment ?? null]));
      for (const item of now) {
        if (createdHere.has(created(t, item.name))) continue;
        const [a, b] = [comments.get(item.name) ?? null, item.comment ?? null];
        if (a === b) continue;
        p.late.push({
          kind: 'comment_object',
          target: {
            type,
            schema: table.schema,
            name: item.name,
            table: type === 'constraint' ? table.name : null,
          },
          before: a,
          after: b,
        });
      }
    };
    pass('constraint', constraintsOf(old), constraintsOf(table));
    pass('index', old.indexes, table.indexes);
  }
  const typeComments = (
    type: 'type' | 'sequence',
    was: { schema: string; name: string; comment?: string | null }[],
    now: { schema: string; name: string; comment?: string | null }[],
  ) => {
    const comments = new Map(was.map((item) => [`${item.schema}.${item.name}`, item.comment ?? null]));
    for (const item of now) {
      const key = `${item.schema}.${item.name}`;
      if (!comments.has(key)) continue;
      const [a, b] = [comments.get(key) ?? null, item.comment ?? null];
      if (a !== b)
        p.late.push({
          kind: 'comment_object',
          target: { type, schema: item.schema, name: item.name, table: null },
          before: a,
          after: b,
        } satisfies MigrationOperation);
    }
  };
  typeComments('type', tgt.enums, src.enums);
  typeComments('sequence', tgt.sequences, src.sequences);
}

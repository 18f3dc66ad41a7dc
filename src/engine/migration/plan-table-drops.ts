// What a table loses on the way to the source: the columns that go (each after its backup with
// `backup_drops`, put back where they were on MySQL by the rollback) and the foreign keys that must
// step aside while a key they use is dropped or retyped.

import { type EngineTraits, traitsOf } from '../schema/engine-traits.ts';
import {
  type ColumnModel,
  type SchemaModel,
  type SequenceModel,
  type TableModel,
  tableKey,
} from '../schema/model.ts';
import { backupKey } from './backup.ts';
import { ref, type TableRef } from './operations.ts';
import { type Phases, type PlanTableOptions, parentChanges } from './plan-tables.ts';
import { columnKey, type PlanNote } from './plan-types.ts';

/**
 * Foreign keys that stay but must be dropped for a while: those referencing a primary key, unique
 * constraint or index that is dropped (the server refuses to drop a key a foreign key uses), and on
 * MySQL those whose columns change type (both sides must keep matching types at every statement).
 */
export function planDependentForeignKeys(
  p: Phases,
  src: SchemaModel,
  tgt: SchemaModel,
  engine: EngineTraits,
  rebuilt: Set<string> = new Set(),
): void {
  const dropped = new Set<string>();
  const keyId = (table: TableRef, columns: string[]) =>
    JSON.stringify([table.schema, table.name, [...columns].sort()]);
  for (const op of p.dropKeys) {
    if (op.kind === 'drop_primary_key') dropped.add(keyId(op.table, op.key.columns));
    if (op.kind === 'drop_unique') dropped.add(keyId(op.table, op.constraint.columns));
    if (op.kind === 'drop_index' && (op.index.unique || engine.foreignKeysOnIndexes))
      dropped.add(keyId(op.table, op.index.columns));
  }
  const retyped = new Set<string>();
  for (const op of p.columns)
    if (op.kind === 'alter_column' && (op.change === 'type' || op.change === 'replace_generated'))
      retyped.add(columnKey({ schema: op.table.schema, table: op.table.name, column: op.before.name }));
  const alreadyDropped = new Set(
    p.dropForeignKeys.map((op) =>
      op.kind === 'drop_foreign_key' ? JSON.stringify([op.table.schema, op.table.name, op.key.name]) : '',
    ),
  );
  const srcTables = new Map(src.tables.map((table) => [tableKey(table), table]));
  for (const table of tgt.tables) {
    const wanted = srcTables.get(tableKey(table));
    if (!wanted) continue;
    for (const key of table.foreign_keys) {
      if (alreadyDropped.has(JSON.stringify([table.schema, table.name, key.name]))) continue;
      const referenced = { schema: key.referenced_schema ?? table.schema, name: key.referenced_table };
      const touchesRetyped =
        engine.foreignKeysOnIndexes &&
        (key.columns.some((c) =>
          retyped.has(columnKey({ schema: table.schema, table: table.name, column: c })),
        ) ||
          key.referenced_columns.some((c) =>
            retyped.has(columnKey({ schema: referenced.schema, table: referenced.name, column: c })),
          ));
      // A rebuilt table is dropped at the end of its rebuild: nothing may reference it then.
      const intoRebuilt = rebuilt.has(tableKey(referenced)) && !rebuilt.has(tableKey(table));
      if (!touchesRetyped && !intoRebuilt && !dropped.has(keyId(referenced, key.referenced_columns)))
        continue;
      const kept = wanted.foreign_keys.find((k) => k.name === key.name);
      p.dropForeignKeys.push({ kind: 'drop_foreign_key', table: ref(table), key });
      if (kept) p.addForeignKeys.push({ kind: 'add_foreign_key', table: ref(table), key: kept });
    }
  }
}

export function planColumnDrops(
  p: Phases,
  notes: PlanNote[],
  tgt: SchemaModel,
  from: TableModel,
  to: TableModel,
  options: PlanTableOptions,
  nextBackup: (table: string, column: string) => string,
  ownedByDropped: Map<string, SequenceModel[]>,
  srcTables: Map<string, TableModel>,
): void {
  const table = ref(from);
  const wanted = new Map(to.columns.map((column) => [column.name, column]));
  const keeps = (column: ColumnModel) => wanted.get(column.name)?.type === column.type;
  const disableTriggers = tgt.unmanaged.some(
    (item) => item.kind === 'trigger' && item.schema === from.schema && item.table === from.name,
  );
  // Where columns are placed, the rollback puts a column back after the nearest column before it that the plan keeps
  // (drops are undone last first, so neighbours dropped too come back in order).
  const placeOf = (column: ColumnModel) => {
    if (!traitsOf(tgt.dialect).placedColumns) return {};
    const at = from.columns.indexOf(column);
    const previous = from.columns
      .slice(0, at)
      .reverse()
      .find((c) => wanted.has(c.name));
    return { after: previous ? previous.name : null };
  };
  const onlyHere = (column: ColumnModel) => keptByChildren(tgt, srcTables, from, column.name);
  // An inherited column goes with its parent's, unless the parent drops it ONLY (a child keeps it).
  const goesWithParent = (column: ColumnModel) =>
    column.inherited === true &&
    !parentChanges(from, to).loses &&
    !(from.inherits ?? []).some((parent) => {
      const table = tgt.tables.find((t) => tableKey(t) === tableKey(parent));
      const dropped = !srcTables.get(tableKey(parent))?.columns.some((c) => c.name === column.name);
      return table !== undefined && dropped && keptByChildren(tgt, srcTables, table, column.name);
    });
  for (const column of from.columns) {
    if (wanted.has(column.name) || goesWithParent(column)) continue;
    const only = onlyHere(column) ? { only: true } : {};
    const sequences =
      ownedByDropped.get(columnKey({ schema: from.schema, table: from.name, column: column.name })) ?? [];
    if (column.inherited === true && !parentChanges(from, to).loses) {
      // Its parent dropped it ONLY just before (its backup holds this table's rows too): undoing
      // that adds the column back here as well, inherited as it was.
      p.dropColumns.push({ kind: 'drop_column', table, column, backup: null, sequences, after_parent: true });
      continue;
    }
    // A generated column's values come back by themselves: nothing to keep.
    if (!options.backup_drops || column.generated !== null) {
      p.dropColumns.push({
        kind: 'drop_column',
        table,
        column,
        backup: null,
        sequences,
        ...placeOf(column),
        ...only,
      });
      continue;
    }
    const key = backupKey(from, keeps);
    if (key === null || key.some((k) => k.name === column.name)) {
      notes.push({
        object: `${tableKey(from)}.${column.name}`,
        message:
          'No primary key or NOT NULL unique key that the plan leaves unchanged identifies the rows: the values of this column cannot be backed up, and its drop cannot be rolled back.',
      });
      p.dropColumns.push({
        kind: 'drop_column',
        table,
        column,
        backup: null,
        sequences,
        ...placeOf(column),
        ...only,
      });
      continue;
    }
    const name = nextBackup(from.name, column.name);
    const onUpdateColumns = from.columns
      .filter((c) => c.on_update !== null && c.name !== column.name)
      .map((c) => c.name);
    p.dropColumns.push({ kind: 'backup_column', table, column, key, backup: name });
    p.dropColumns.push({
      kind: 'drop_column',
      table,
      column,
      backup: { name, key, onUpdateColumns, disableTriggers },
      sequences,
      ...placeOf(column),
      ...only,
    });
  }
}

/**
 * Whether an inheritance child of `parent` keeps the column `name` as its own in the source while
 * the parent drops it: then the parent drops it ONLY (each child's copy becomes its own, as when
 * it was declared there too) and the children that do not keep it drop theirs after it.
 */
function keptByChildren(
  tgt: SchemaModel,
  srcTables: Map<string, TableModel>,
  parent: TableModel,
  name: string,
): boolean {
  const key = tableKey(parent);
  return tgt.tables.some((child) => {
    if (!(child.inherits ?? []).some((p) => tableKey(p) === key)) return false;
    if (!child.columns.some((c) => c.name === name && c.inherited === true)) return false;
    const kept = srcTables.get(tableKey(child))?.columns.find((c) => c.name === name);
    return kept !== undefined && kept.inherited !== true;
  });
}

// Foreign-key propagation (docs/contract.md §9.2): a rule on a key column that other tables reference is applied
// to every referencing column too, through the schema's foreign keys and recursively (a referencing
// column may itself be referenced), so anonymised keys still join and the foreign keys stay valid.
import type { SchemaModel, TableModel } from '../schema/model.ts';
import { tableKey } from '../schema/model.ts';

export interface ColumnAddress {
  /** `schema.table` (PostgreSQL) or `table` (MySQL), as tableKey() writes it. */
  table: string;
  column: string;
}

export interface PropagatedColumn extends ColumnAddress {
  /** The column whose rule it takes: the rule's own column, at the root of the chain. */
  from: ColumnAddress;
  /** The foreign key it was reached through. */
  via: string;
}

const addressKey = (a: ColumnAddress) => `${a.table}\u0000${a.column}`;

/** The key of the table a foreign key references, written as tableKey() writes it. */
function referencedKey(table: TableModel, referencedSchema: string | null, referencedTable: string): string {
  return tableKey({ schema: referencedSchema ?? table.schema, name: referencedTable });
}

/** For each referenced column: the referencing columns pointing at it, with the foreign key's name. */
function referencesIndex(model: SchemaModel): Map<string, { at: ColumnAddress; via: string }[]> {
  const index = new Map<string, { at: ColumnAddress; via: string }[]>();
  for (const table of model.tables) {
    for (const fk of table.foreign_keys) {
      const target = referencedKey(table, fk.referenced_schema, fk.referenced_table);
      fk.referenced_columns.forEach((referenced, i) => {
        const column = fk.columns[i];
        if (column === undefined) return;
        const key = addressKey({ table: target, column: referenced });
        const list = index.get(key) ?? [];
        list.push({ at: { table: tableKey(table), column }, via: fk.name });
        index.set(key, list);
      });
    }
  }
  return index;
}

/**
 * Every column a rule on each of `roots` reaches through foreign keys, with the root it takes its
 * rule from; once per root (cycles end the walk). A column reached from two roots, or holding a rule
 * of its own, appears as it is reached: the caller decides whether the rules agree.
 */
export function propagate(model: SchemaModel, roots: readonly ColumnAddress[]): PropagatedColumn[] {
  const index = referencesIndex(model);
  const out: PropagatedColumn[] = [];
  for (const root of roots) {
    const seen = new Set([addressKey(root)]);
    const queue: ColumnAddress[] = [root];
    while (queue.length > 0) {
      const current = queue.shift() as ColumnAddress;
      for (const { at, via } of index.get(addressKey(current)) ?? []) {
        if (seen.has(addressKey(at))) continue;
        seen.add(addressKey(at));
        out.push({ ...at, from: root, via });
        queue.push(at);
      }
    }
  }
  return out;
}

export { addressKey };

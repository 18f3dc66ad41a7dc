// What a migration drops, for the double confirmation of docs/contract.md §8: a statement that drops a table or a
// column needs `confirm_irreversible` and the target connection's name. Read from the statements'
// facts, so it works the same for planned and edited SQL (a statement that does not parse is not
// known to drop anything: lint reports it as an error).
import type { StatementFact } from './facts.ts';

export interface DroppedObject {
  statement_index: number;
  kind: 'table' | 'column';
  /** `schema.table`, `table`, or `table.column`. */
  object: string;
  /** The rollback restores it (backup_drops). */
  backed_up: boolean;
}

export function droppedObjects(statements: { facts: StatementFact[] | null }[]): DroppedObject[] {
  const out: DroppedObject[] = [];
  statements.forEach((statement, index) => {
    for (const fact of statement.facts ?? []) {
      if (fact.action !== 'drop_table' && fact.action !== 'drop_column') continue;
      const table = fact.table.schema === null ? fact.table.name : `${fact.table.schema}.${fact.table.name}`;
      out.push({
        statement_index: index,
        kind: fact.action === 'drop_table' ? 'table' : 'column',
        object: fact.action === 'drop_column' ? `${table}.${fact.column}` : table,
        backed_up: fact.backed_up,
      });
    }
  });
  return out;
}

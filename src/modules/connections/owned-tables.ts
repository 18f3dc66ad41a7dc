// Tables a module keeps inside a target database for its own use (a patch's backup of the rows it
// changed): they are of no use without the records that name them, so they go when their
// connection is deleted. Each module declares its own (Module.ownedTables); the connections module
// asks them all, without knowing what they are.
import type { Db } from '../../store/db.ts';
import type { Connection } from '../../store/tables.ts';

export interface OwnedTables {
  /** The tables kept in the connection's database, written as that dialect names them. */
  of(db: Db, connection: Connection): Promise<string[]>;
}

/** The modules' owned tables, complete once the composition root has built every module. */
export function createOwnedTablesRegistry() {
  const sources: OwnedTables[] = [];
  return {
    add(source: OwnedTables): void {
      sources.push(source);
    },
    async of(db: Db, connection: Connection): Promise<string[]> {
      return (await Promise.all(sources.map((source) => source.of(db, connection)))).flat();
    },
  };
}

export type OwnedTablesRegistry = ReturnType<typeof createOwnedTablesRegistry>;

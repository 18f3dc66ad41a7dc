// Store access shared by the configs that belong to one connection of a project (seed scenarios,
// anonymization configs): each module names its table, the queries are the same.
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { Timestamp } from '../../store/tables/columns.ts';
import type { Database } from '../../store/tables.ts';

/** The columns that make a row a connection-scoped config, and that these queries use. */
interface ConfigColumns {
  id: string;
  org_id: string;
  project_id: string;
  connection_id: string;
  name: string;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The store's tables whose rows are connection-scoped configs. */
export type ConfigTable = {
  [T in keyof Database]: Database[T] extends ConfigColumns ? T : never;
}[keyof Database];

/**
 * Kysely cannot resolve a column of a table whose name is a type parameter, so the queries are
 * typed against the columns every config table has (`withTables`), and their rows cast back to the
 * table's own row type (`$castTo`): callers see the table's types.
 */
type ConfigsDb = Record<string, ConfigColumns>;
const configsOf = (db: Db) => db.withTables<ConfigsDb>();

export type ConnectionConfigsRepo<T extends ConfigTable> = ReturnType<typeof connectionConfigsRepo<T>>;

/** A config as read: its table's row, whose common columns the helpers may read. */
export type ConfigRow<T extends ConfigTable> = Selectable<Database[T]> & Selectable<ConfigColumns>;

export function connectionConfigsRepo<T extends ConfigTable>(configTable: T) {
  type Row = ConfigRow<T>;
  const table: string = configTable;
  return {
    /** A new config: the columns every config has, and its own. */
    insert(
      db: Db,
      common: Insertable<ConfigColumns>,
      own: Omit<Insertable<Database[T]>, keyof ConfigColumns>,
    ): Promise<Row> {
      return configsOf(db)
        .insertInto(table)
        .values({ ...own, ...common })
        .returningAll()
        .executeTakeFirstOrThrow() as Promise<Row>;
    },

    find(db: Db, orgId: string, id: string): Promise<Row | undefined> {
      return configsOf(db)
        .selectFrom(table)
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst() as Promise<Row | undefined>;
    },

    /** A config by id alone, for the run handler (the run was authorised when requested). */
    findById(db: Db, id: string): Promise<Row | undefined> {
      return configsOf(db).selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst() as Promise<
        Row | undefined
      >;
    },

    /** Locks the row for the rest of the transaction. */
    lock(db: Db, id: string): Promise<Row | undefined> {
      return configsOf(db)
        .selectFrom(table)
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst() as Promise<Row | undefined>;
    },

    /** A project's configs, newest first: a query to paginate. */
    projectQuery(db: Db, projectId: string) {
      return configsOf(db)
        .selectFrom(table)
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .$castTo<Row>();
    },

    async nameTaken(db: Db, projectId: string, name: string, exceptId?: string): Promise<boolean> {
      let query = configsOf(db)
        .selectFrom(table)
        .select('id')
        .where('project_id', '=', projectId)
        .where('name', '=', name);
      if (exceptId) query = query.where('id', '!=', exceptId);
      return (await query.executeTakeFirst()) !== undefined;
    },

    update(db: Db, id: string, changes: Updateable<Database[T]>): Promise<Row> {
      return configsOf(db)
        .updateTable(table)
        .set(changes)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow() as Promise<Row>;
    },

    async remove(db: Db, id: string): Promise<void> {
      await configsOf(db).deleteFrom(table).where('id', '=', id).execute();
    },
  };
}

// Store access shared by the configs that belong to one connection of a project (seed scenarios,
// anonymization configs): each module names its table, the queries are the same.
import type { Insertable, Kysely, Selectable, SelectQueryBuilder, Updateable } from 'kysely';
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
  created_at: Timestamp;
}

/** The store's tables whose rows are connection-scoped configs. */
export type ConfigTable = {
  [T in keyof Database]: Database[T] extends ConfigColumns ? T : never;
}[keyof Database];

/**
 * Kysely cannot resolve a column of a table whose name is a type parameter, so the queries are
 * typed against the columns every config table has; callers still see the table's own row types.
 */
type ConfigsDb = Record<string, ConfigColumns>;
function configsOf(db: Db): Kysely<ConfigsDb> {
  return db as unknown as Kysely<ConfigsDb>;
}

export type ConnectionConfigsRepo<T extends ConfigTable> = ReturnType<typeof connectionConfigsRepo<T>>;

export function connectionConfigsRepo<T extends ConfigTable>(configTable: T) {
  type Row = Selectable<Database[T]>;
  const table: string = configTable;
  return {
    insert(db: Db, row: Insertable<Database[T]>): Promise<Row> {
      return configsOf(db)
        .insertInto(table)
        .values(row as Insertable<ConfigColumns>)
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
    projectQuery(db: Db, projectId: string): SelectQueryBuilder<ConfigsDb, string, Row> {
      return configsOf(db)
        .selectFrom(table)
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc') as unknown as SelectQueryBuilder<ConfigsDb, string, Row>;
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
        .set(changes as Updateable<ConfigColumns>)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow() as Promise<Row>;
    },

    async remove(db: Db, id: string): Promise<void> {
      await configsOf(db).deleteFrom(table).where('id', '=', id).execute();
    },
  };
}

// Store access for schema migrations.

import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { MigrationsTable, SchemaMigration } from '../../store/tables.ts';
import type { MigrationState } from './migration-states.ts';

export async function insertMigration(db: Db, row: Insertable<MigrationsTable>): Promise<SchemaMigration> {
  return db.insertInto('migrations').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findMigration(db: Db, orgId: string, id: string): Promise<SchemaMigration | undefined> {
  return db
    .selectFrom('migrations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findMigrationById(db: Db, id: string): Promise<SchemaMigration | undefined> {
  return db.selectFrom('migrations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks the row for the rest of the transaction. */
export function lockMigration(db: Db, id: string): Promise<SchemaMigration | undefined> {
  return db.selectFrom('migrations').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function projectMigrationsQuery(db: Db, projectId: string) {
  return db
    .selectFrom('migrations')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

export async function updateMigration(
  db: Db,
  id: string,
  changes: Updateable<MigrationsTable>,
): Promise<SchemaMigration> {
  return db
    .updateTable('migrations')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Moves the state only from one of `from` (migration-states.ts); returns whether it moved. */
export async function moveStatus(
  db: Db,
  id: string,
  from: readonly MigrationState[],
  changes: Updateable<MigrationsTable> & MigrationState,
): Promise<boolean> {
  const result = await db
    .updateTable('migrations')
    .set(changes)
    .where('id', '=', id)
    .where((eb) =>
      eb.or(
        from.map((state) =>
          eb.and([
            eb('status', '=', state.status),
            state.failed_operation === null
              ? eb('failed_operation', 'is', null)
              : eb('failed_operation', '=', state.failed_operation),
          ]),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

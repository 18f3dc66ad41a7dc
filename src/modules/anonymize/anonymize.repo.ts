// Store access for anonymization configs.
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { AnonymizeConfig, AnonymizeConfigsTable } from '../../store/tables.ts';

export function insertConfig(db: Db, row: Insertable<AnonymizeConfigsTable>): Promise<AnonymizeConfig> {
  return db.insertInto('anonymize_configs').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findConfig(db: Db, orgId: string, id: string): Promise<AnonymizeConfig | undefined> {
  return db
    .selectFrom('anonymize_configs')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Locks the row for the rest of the transaction. */
export function lockConfig(db: Db, id: string): Promise<AnonymizeConfig | undefined> {
  return db.selectFrom('anonymize_configs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function projectConfigsQuery(db: Db, projectId: string) {
  return db
    .selectFrom('anonymize_configs')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
}

export async function nameTaken(
  db: Db,
  projectId: string,
  name: string,
  exceptId?: string,
): Promise<boolean> {
  let query = db
    .selectFrom('anonymize_configs')
    .select('id')
    .where('project_id', '=', projectId)
    .where('name', '=', name);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export function updateConfig(
  db: Db,
  id: string,
  changes: Updateable<AnonymizeConfigsTable>,
): Promise<AnonymizeConfig> {
  return db
    .updateTable('anonymize_configs')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteConfig(db: Db, id: string): Promise<void> {
  await db.deleteFrom('anonymize_configs').where('id', '=', id).execute();
}

/** A config by id alone, for the run handler (the run was authorised when requested). */
export function findConfigById(db: Db, id: string): Promise<AnonymizeConfig | undefined> {
  return db.selectFrom('anonymize_configs').selectAll().where('id', '=', id).executeTakeFirst();
}

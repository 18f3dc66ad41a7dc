// Store access for seed scenarios.
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { SeedScenario, SeedScenariosTable } from '../../store/tables.ts';

export function insertScenario(db: Db, row: Insertable<SeedScenariosTable>): Promise<SeedScenario> {
  return db.insertInto('seed_scenarios').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findScenario(db: Db, orgId: string, id: string): Promise<SeedScenario | undefined> {
  return db
    .selectFrom('seed_scenarios')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A scenario by id alone, for the run handler (the run was authorised when requested). */
export function findScenarioById(db: Db, id: string): Promise<SeedScenario | undefined> {
  return db.selectFrom('seed_scenarios').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Locks the row for the rest of the transaction. */
export function lockScenario(db: Db, id: string): Promise<SeedScenario | undefined> {
  return db.selectFrom('seed_scenarios').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function projectScenariosQuery(db: Db, projectId: string) {
  return db
    .selectFrom('seed_scenarios')
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
    .selectFrom('seed_scenarios')
    .select('id')
    .where('project_id', '=', projectId)
    .where('name', '=', name);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export function updateScenario(
  db: Db,
  id: string,
  changes: Updateable<SeedScenariosTable>,
): Promise<SeedScenario> {
  return db
    .updateTable('seed_scenarios')
    .set(changes)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteScenario(db: Db, id: string): Promise<void> {
  await db.deleteFrom('seed_scenarios').where('id', '=', id).execute();
}

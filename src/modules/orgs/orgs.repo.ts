// Organizations: the tenants.
import type { Kysely } from 'kysely';
import type { Plan } from '../../core/vocabulary.ts';
import type { Database, Organization } from '../../store/tables.ts';

type Executor = Kysely<Database>;

export async function findOrg(db: Executor, id: string): Promise<Organization | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertOrg(
  db: Executor,
  org: { id: string; name: string; plan: Plan; created_at: Date; updated_at: Date },
) {
  return db.insertInto('organizations').values(org).returningAll().executeTakeFirstOrThrow();
}

export async function renameOrg(db: Executor, id: string, name: string, now: Date): Promise<Organization> {
  return db
    .updateTable('organizations')
    .set({ name, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

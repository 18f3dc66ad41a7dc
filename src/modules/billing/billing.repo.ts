// Plans of organizations in the store.
import type { Kysely } from 'kysely';
import type { Database, Organization, Plan } from '../../store/tables.ts';

type Executor = Kysely<Database>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organizations whose id is `ref` or whose name is exactly `ref` (names are not unique). */
export async function findOrgsByIdOrName(db: Executor, ref: string): Promise<Organization[]> {
  return db
    .selectFrom('organizations')
    .selectAll()
    .where((eb) =>
      UUID.test(ref) ? eb.or([eb('id', '=', ref), eb('name', '=', ref)]) : eb('name', '=', ref),
    )
    .orderBy('created_at')
    .execute();
}

export async function updateOrgPlan(
  db: Executor,
  id: string,
  plan: { plan: Plan; rate_limit_per_minute: number | null; rate_limit_per_hour: number | null },
  now: Date,
): Promise<Organization> {
  return db
    .updateTable('organizations')
    .set({ ...plan, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

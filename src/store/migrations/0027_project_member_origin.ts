// Which project memberships SCIM gave (docs/contract.md §12): when a group mapping is dropped, its members lose the
// project roles it gave, and only those; a role an admin gave by hand stays. `scim_managed` marks a
// membership the group mappings set; `role_by_hand` keeps the role an admin had given before SCIM
// took the membership over, to return to when SCIM lets go of it. A change by hand clears both.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('project_members')
    .addColumn('scim_managed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('role_by_hand', 'text', (c) => c.check(sql`role_by_hand in ('viewer', 'developer', 'admin')`))
    .execute();
  // Before this, SCIM set the memberships of its users in every project a mapping named: those are
  // the ones it gave (what an admin had given there before is not known any more).
  await sql`update project_members pm set scim_managed = true
    from users u, scim_configs c
    where u.id = pm.user_id and u.scim_managed and c.org_id = u.org_id
      and exists (
        select 1 from jsonb_array_elements(c.group_mappings) m,
          jsonb_array_elements(coalesce(m -> 'projects', '[]'::jsonb)) p
        where p ->> 'project_id' = pm.project_id::text
      )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('project_members')
    .dropColumn('role_by_hand')
    .dropColumn('scim_managed')
    .execute();
}

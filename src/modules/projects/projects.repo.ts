// Projects and their members.
import type { Kysely } from 'kysely';
import type { Database, PolicyRule, Project, ProjectRole } from '../../store/tables.ts';

type Executor = Kysely<Database>;

/** The project (of this organization) and the user's own role in it, in one round trip. */
export async function findProjectWithRole(db: Executor, orgId: string, projectId: string, userId: string) {
  return db
    .selectFrom('projects as p')
    .leftJoin('project_members as m', (join) =>
      join.onRef('m.project_id', '=', 'p.id').on('m.user_id', '=', userId),
    )
    .selectAll('p')
    .select('m.role as member_role')
    .where('p.org_id', '=', orgId)
    .where('p.id', '=', projectId)
    .executeTakeFirst();
}

/** Projects visible to a user: all of them for organization admins, else those they are a member of. */
export function visibleProjectsQuery(db: Executor, orgId: string, userId: string, seesAll: boolean) {
  let query = db
    .selectFrom('projects')
    .select(['id', 'name', 'description', 'created_at', 'updated_at'])
    .where('org_id', '=', orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (!seesAll) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('project_members')
          .select('project_members.user_id')
          .whereRef('project_members.project_id', '=', 'projects.id')
          .where('project_members.user_id', '=', userId),
      ),
    );
  }
  return query;
}

export async function findProjectByName(db: Executor, orgId: string, name: string, exceptId?: string) {
  let query = db
    .selectFrom('projects')
    .select('id')
    .where('org_id', '=', orgId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
  if (exceptId) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

export async function insertProject(
  db: Executor,
  project: {
    id: string;
    org_id: string;
    name: string;
    description: string | null;
    created_at: Date;
    updated_at: Date;
  },
): Promise<Project> {
  return db.insertInto('projects').values(project).returningAll().executeTakeFirstOrThrow();
}

export async function updateProject(
  db: Executor,
  id: string,
  changes: { name?: string; description?: string | null; policy?: PolicyRule[]; updated_at: Date },
): Promise<Project> {
  const { policy, ...rest } = changes;
  return db
    .updateTable('projects')
    .set({ ...rest, ...(policy && { policy: JSON.stringify(policy) }) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteProject(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('projects').where('id', '=', id).execute();
}

export function membersQuery(db: Executor, projectId: string) {
  return db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.email', 'u.name', 'm.role', 'm.created_at'])
    .where('m.project_id', '=', projectId)
    .orderBy('m.created_at', 'desc')
    .orderBy('m.user_id', 'desc');
}

export async function findMember(db: Executor, projectId: string, userId: string) {
  return membersQuery(db, projectId).where('m.user_id', '=', userId).executeTakeFirst();
}

export async function insertMember(
  db: Executor,
  member: { project_id: string; user_id: string; role: ProjectRole; created_at: Date },
) {
  await db.insertInto('project_members').values(member).execute();
}

export async function updateMemberRole(
  db: Executor,
  projectId: string,
  userId: string,
  role: ProjectRole,
): Promise<void> {
  await db
    .updateTable('project_members')
    .set({ role })
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteMember(db: Executor, projectId: string, userId: string): Promise<void> {
  await db
    .deleteFrom('project_members')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .execute();
}

// Projects and their members.
import { type Kysely, sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { apiTimestamp } from '../../store/api-timestamp.ts';
import { statementTemplate } from '../../store/statement-template.ts';
import type { Database, PolicyRule, Project, ProjectRole } from '../../store/tables.ts';
import { epochColumn } from '../auth/credential-epoch.ts';

type Executor = Kysely<Database>;

/** The status the badges count, as a literal (see pendingBadge). */
const PENDING = sql.lit('pending' as const);

const ROLE_RANK = sql`case g.role when 'admin' then 3 when 'developer' then 2 else 1 end`;

/**
 * The project (of this organization), the user's own role in it and the strongest role of their
 * active just-in-time grants (project-wide, or on `connectionId`), in one round trip. A grant past
 * its `expires_at` no longer counts even before the expiry job marks it: the store's clock decides,
 * the one clock every process shares.
 */
export async function findProjectWithRole(
  db: Executor,
  orgId: string,
  projectId: string,
  userId: string,
  connectionId?: string,
) {
  return db
    .selectFrom('projects as p')
    .leftJoin('project_members as m', (join) =>
      join.onRef('m.project_id', '=', 'p.id').on('m.user_id', '=', userId),
    )
    .selectAll('p')
    .select('m.role as member_role')
    .select((eb) =>
      eb
        .selectFrom('access_requests as g')
        .select('g.role')
        .whereRef('g.project_id', '=', 'p.id')
        .where('g.user_id', '=', userId)
        .where('g.status', '=', 'active')
        .where('g.expires_at', '>', sql<Date>`now()`)
        .where((w) =>
          connectionId === undefined
            ? w('g.connection_id', 'is', null)
            : w.or([w('g.connection_id', 'is', null), w('g.connection_id', '=', connectionId)]),
        )
        .orderBy(ROLE_RANK, 'desc')
        .limit(1)
        .as('grant_role'),
    )
    .where('p.org_id', '=', orgId)
    .where('p.id', '=', projectId)
    .executeTakeFirst();
}

/** Pending approvals of a project (the sidebar badge). */
export async function countPendingApprovals(db: Executor, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('approvals')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('project_id', '=', projectId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Drift reports of a project not yet acknowledged (the sidebar badge). */
export async function countOpenDriftReports(db: Executor, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('drift_reports')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('project_id', '=', projectId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return row.n;
}

/**
 * A project's sidebar badge: its rows of `table` still pending, as a subquery of the projects list
 * (no query per project), read from the partial index of what is pending (migration
 * 0024_pending_badges) with 'pending' written in the text: a parameter would keep the prepared
 * statement's generic plan off a partial index. `guarded`: counted only when the organization has
 * anything pending at all; the uncorrelated EXISTS runs once per statement (an InitPlan) and, in the
 * common case of nothing pending, spares the per-project counts: half the PostgreSQL server's time
 * on a 20-project page whose plan is cached, but a sixth more planning, which a store that plans
 * every run (STORE_PREPARED_STATEMENTS=false) pays each time for less than it saves.
 */
function pendingBadge(table: 'approvals' | 'drift_reports', orgId: string, guarded: boolean) {
  const t = sql.table(table);
  const count = sql<number>`(select count(*)::int from ${t} where ${t}.org_id = ${sql.ref('projects.org_id')}
    and ${t}.project_id = ${sql.ref('projects.id')} and ${t}.status = ${PENDING})`;
  if (!guarded) return count;
  return sql<number>`case when exists (select 1 from ${t} where ${t}.org_id = ${orgId} and ${t}.status = ${PENDING})
    then ${count} else 0 end`;
}

/**
 * Projects visible to a user (all of them for organization admins, else those they are a member of),
 * newest first, each as the API lists it: timestamps already in the API's text form. `guardedBadges`:
 * see pendingBadge (true where the store caches plans).
 */
export function visibleProjectsQuery(
  db: Executor,
  orgId: string,
  userId: string,
  seesAll: boolean,
  guardedBadges: boolean,
) {
  let query = db
    .selectFrom('projects')
    .select(['id', 'name', 'description'])
    .select([
      apiTimestamp('projects.created_at').as('created_at'),
      apiTimestamp('projects.updated_at').as('updated_at'),
    ])
    .select([
      pendingBadge('approvals', orgId, guardedBadges).as('pending_approvals'),
      pendingBadge('drift_reports', orgId, guardedBadges).as('open_drift_reports'),
    ])
    .where('org_id', '=', orgId)
    // Qualified: a bare "created_at" in ORDER BY would sort by the output column, the text above.
    .orderBy('projects.created_at', 'desc')
    .orderBy('projects.id', 'desc');
  if (!seesAll) {
    query = query.where(isProjectMember('projects.id', userId));
  }
  return query;
}

/**
 * One page of `visible` as one row: the items as a JSON array built by the store, so the driver
 * parses one value instead of a typed field per column per row. The array keeps the order of its
 * sorted, limited subquery, as PostgreSQL aggregates a subquery scan in its order. `withEpoch`: the
 * credential epoch rides along, read in the same snapshot, so the caller's cached principal is
 * confirmed against it without a round trip of its own (src/http/confirmed-read.ts); the row is
 * there even when the page is empty.
 */
export function projectsPageQuery(
  db: Executor,
  visible: ReturnType<typeof visibleProjectsQuery>,
  slice: { limit: number; offset: number },
  withEpoch: boolean,
) {
  return db
    .selectNoFrom(jsonArrayFrom(visible.limit(slice.limit).offset(slice.offset)).as('items'))
    .$if(withEpoch, (query) => query.select(epochColumn.as('credential_epoch')));
}

/**
 * `projectsPageQuery` as a statement template (src/store/statement-template.ts): the request path
 * lists projects without building the query each time.
 */
export function projectsPageStatement(db: Executor, guardedBadges: boolean) {
  return statementTemplate(
    db,
    (
      db,
      shape: { seesAll: boolean; withEpoch: boolean },
      values: { orgId: string; userId: string; limit: number; offset: number },
    ) =>
      projectsPageQuery(
        db,
        visibleProjectsQuery(db, values.orgId, values.userId, shape.seesAll, guardedBadges),
        values,
        shape.withEpoch,
      ),
  );
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
    // A role set by hand is the admin's: SCIM takes back only what it gave (scim.roles.ts).
    .set({ role, scim_managed: false, role_by_hand: null })
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

/**
 * "The user is a member of the project in `projectIdColumn`": what lists of project-owned things
 * (connections, runs, approvals, drift reports) add for a user who is not an organization admin.
 */
export function isProjectMember(projectIdColumn: string, userId: string) {
  return sql<boolean>`exists (select 1 from project_members
    where project_members.project_id = ${sql.ref(projectIdColumn)} and project_members.user_id = ${userId})`;
}

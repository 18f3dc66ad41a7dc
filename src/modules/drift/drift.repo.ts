// Drift reports in the store, and the few reads of other tables drift needs in one round trip (the
// connections of Enterprise organizations, the people an alert goes to).
import { type Kysely, sql } from 'kysely';
import type { Connection, Database, DriftReport, DriftStatus, Plan, Project } from '../../store/tables.ts';
import { isProjectMember } from '../projects/projects.repo.ts';

type Executor = Kysely<Database>;

export type NewDriftReport = Omit<DriftReport, 'summary' | 'diff'> & { summary: object; diff: object };

export async function insertReport(db: Executor, report: NewDriftReport): Promise<DriftReport> {
  return db
    .insertInto('drift_reports')
    .values({ ...report, summary: JSON.stringify(report.summary), diff: JSON.stringify(report.diff) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findReport(db: Executor, orgId: string, id: string) {
  return db
    .selectFrom('drift_reports')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** For the service's own work (the alert job), which has no caller's organization to check. */
export async function findReportById(db: Executor, id: string) {
  return db.selectFrom('drift_reports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The pending report that already describes a connection in this state, if any. */
export async function findPendingReportWithHash(db: Executor, connectionId: string, schemaHash: string) {
  return db
    .selectFrom('drift_reports')
    .selectAll()
    .where('connection_id', '=', connectionId)
    .where('status', '=', 'pending')
    .where('current_schema_hash', '=', schemaHash)
    .executeTakeFirst();
}

/** The connection's newest report and how many of its reports are pending, in one round trip. */
export async function reportOverview(db: Executor, connectionId: string) {
  const latest = await db
    .selectFrom('drift_reports')
    .selectAll()
    .select((eb) =>
      eb
        .selectFrom('drift_reports as p')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('p.connection_id', '=', connectionId)
        .where('p.status', '=', 'pending')
        .as('open_reports'),
    )
    .where('connection_id', '=', connectionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!latest) return { latest: undefined, openReports: 0 };
  const { open_reports, ...report } = latest;
  return { latest: report as DriftReport, openReports: open_reports ?? 0 };
}

export interface ReportFilter {
  project_id?: string;
  connection_id?: string;
  status?: DriftStatus;
}

/** Reports of the projects a user can see (all of the organization's for its admins), newest first. */
export function visibleReportsQuery(
  db: Executor,
  scope: { orgId: string; userId: string; seesAll: boolean },
  filter: ReportFilter,
) {
  let query = db
    .selectFrom('drift_reports')
    .selectAll()
    .where('org_id', '=', scope.orgId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (!scope.seesAll) {
    query = query.where(isProjectMember('drift_reports.project_id', scope.userId));
  }
  if (filter.project_id) query = query.where('project_id', '=', filter.project_id);
  if (filter.connection_id) query = query.where('connection_id', '=', filter.connection_id);
  if (filter.status) query = query.where('status', '=', filter.status);
  return query;
}

/**
 * Acknowledges the report and the connection's older pending reports (its acceptance covers them:
 * they describe states before the one that becomes the baseline). Only pending reports change, so
 * of two simultaneous acknowledgements one finds nothing left; the report itself comes first.
 */
export async function acknowledgeReports(
  db: Executor,
  report: Pick<DriftReport, 'id' | 'connection_id' | 'created_at'>,
  acknowledgement: { by: string; at: Date; comment: string | null },
): Promise<DriftReport[]> {
  const rows = await db
    .updateTable('drift_reports')
    .set({
      status: 'acknowledged',
      acknowledged_at: acknowledgement.at,
      acknowledged_by: acknowledgement.by,
      comment: sql<
        string | null
      >`case when id = ${report.id} then ${acknowledgement.comment}::text else ${`Acknowledged with the newer report ${report.id}`}::text end`,
    })
    .where('connection_id', '=', report.connection_id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('id', '=', report.id), eb('created_at', '<', report.created_at)]))
    .returningAll()
    .execute();
  return rows.sort((a, b) => (a.id === report.id ? -1 : b.id === report.id ? 1 : 0));
}

export async function markAlertSent(db: Executor, id: string, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('drift_reports')
    .set({ alert_state: 'sent', alert_sent_at: at })
    .where('id', '=', id)
    .where('alert_state', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Reports whose alert is still to be sent, created after `since` (their job may have been lost). */
export async function reportsAwaitingAlert(db: Executor, since: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('drift_reports')
    .select('id')
    .where('alert_state', '=', 'pending')
    .where('created_at', '>', since)
    .orderBy('created_at')
    .limit(1000)
    .execute();
  return rows.map((row) => row.id);
}

/** Every connection of every organization on the given plan (the daily check's work list). */
export async function connectionIdsOnPlan(db: Executor, plan: Plan): Promise<string[]> {
  const rows = await db
    .selectFrom('connections')
    .innerJoin('organizations', 'organizations.id', 'connections.org_id')
    .select('connections.id')
    .where('organizations.plan', '=', plan)
    .orderBy('connections.id')
    .execute();
  return rows.map((row) => row.id);
}

/** A connection with its organization's plan, read together so the plan is the one of now. */
export async function findConnectionWithPlan(
  db: Executor,
  id: string,
): Promise<(Connection & { plan: Plan }) | undefined> {
  return db
    .selectFrom('connections')
    .innerJoin('organizations', 'organizations.id', 'connections.org_id')
    .selectAll('connections')
    .select('organizations.plan')
    .where('connections.id', '=', id)
    .executeTakeFirst();
}

/** What an alert names: the connection and the project of a report. */
export async function findAlertSubject(
  db: Executor,
  report: Pick<DriftReport, 'connection_id' | 'project_id'>,
): Promise<
  | {
      connection: Pick<Connection, 'id' | 'name' | 'dialect' | 'host' | 'database' | 'environment'>;
      project: Pick<Project, 'id' | 'name'>;
    }
  | undefined
> {
  const row = await db
    .selectFrom('connections as c')
    .innerJoin('projects as p', 'p.id', 'c.project_id')
    .select([
      'c.id',
      'c.name',
      'c.dialect',
      'c.host',
      'c.database',
      'c.environment',
      'p.id as project_id',
      'p.name as project_name',
    ])
    .where('c.id', '=', report.connection_id)
    .where('p.id', '=', report.project_id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { project_id, project_name, ...connection } = row;
  return { connection, project: { id: project_id, name: project_name } };
}

/**
 * Who is told about drift in a project: its admins, that is the members with the project role
 * `admin` and the organization's owners and admins (who act as admins of every project). Active
 * users only; each address once.
 */
export async function findAlertRecipients(db: Executor, project: Pick<Project, 'id' | 'org_id'>) {
  const rows = await db
    .selectFrom('users as u')
    .select('u.email')
    .where('u.org_id', '=', project.org_id)
    .where('u.active', '=', true)
    .where('u.deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('u.org_role', 'in', ['owner', 'admin']),
        eb.exists(
          eb
            .selectFrom('project_members as m')
            .select('m.user_id')
            .whereRef('m.user_id', '=', 'u.id')
            .where('m.project_id', '=', project.id)
            .where('m.role', '=', 'admin'),
        ),
      ]),
    )
    .orderBy('u.email')
    .execute();
  return [...new Set(rows.map((row) => row.email))];
}

// Drift detection as the API offers it (docs/contract.md §6, Enterprise only): a connection's drift status with
// the first-visit baseline, the manual check, reports and their acknowledgement. The plan is checked
// before anything is looked up, so a Starter or Pro organization learns nothing but the 403.

import type { Actor } from '../../core/actors.ts';
import { conflict, notFound } from '../../core/errors.ts';
import { requireFeature } from '../../core/plans.ts';
import { isOrgAdmin } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { DriftReport, Snapshot } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireConnection } from '../connections/connections.access.ts';
import { lockConnection } from '../connections/connections.repo.ts';
import { requireProject } from '../projects/projects.access.ts';
import { findBaseline, setBaseline } from '../snapshots/snapshots.repo.ts';
import type { SnapshotsService } from '../snapshots/snapshots.service.ts';
import {
  acknowledgeReports,
  findReport,
  type ReportFilter,
  reportOverview,
  visibleReportsQuery,
} from './drift.repo.ts';
import type { DriftChecker, DriftCheckOutcome } from './drift-check.ts';

export interface DriftOverview {
  baseline: Snapshot;
  latestReport: DriftReport | null;
  openReports: number;
}

export type DriftService = ReturnType<typeof createDriftService>;

const REPORT = 'Drift report';

export function createDriftService(deps: {
  db: Db;
  audit: AuditService;
  snapshots: Pick<SnapshotsService, 'takeSnapshot'>;
  checker: DriftChecker;
  now: () => Date;
}) {
  const { db, audit, snapshots, checker, now } = deps;
  const requireDrift = (actor: Actor) => requireFeature(actor.principal.plan, 'drift_detection');

  /** The report, if the caller may see it (404 naming the report otherwise). */
  async function loadReport(actor: Actor, id: string, action: 'drift.read' | 'drift.acknowledge') {
    const report = await findReport(db, actor.principal.orgId, id);
    if (!report) throw notFound(REPORT);
    const { connection } = await requireConnection(db, actor, report.connection_id, action, REPORT);
    return { report, connection };
  }

  return {
    async overview(actor: Actor, connectionId: string): Promise<DriftOverview> {
      requireDrift(actor);
      await requireConnection(db, actor, connectionId, 'drift.read');
      // First visit (docs/contract.md §6, fixed): the schema as it is now becomes the baseline.
      const baseline =
        (await findBaseline(db, connectionId)) ??
        (await snapshots.takeSnapshot(connectionId, { baseline: true, actor }));
      const { latest, openReports } = await reportOverview(db, connectionId);
      return { baseline, latestReport: latest ?? null, openReports };
    },

    async check(actor: Actor, connectionId: string): Promise<DriftCheckOutcome> {
      requireDrift(actor);
      const { connection } = await requireConnection(db, actor, connectionId, 'drift.check');
      return checker.check(connection, actor);
    },

    async list(actor: Actor, filter: ReportFilter, page: PageRequest) {
      requireDrift(actor);
      const { principal } = actor;
      if (filter.project_id !== undefined) await requireProject(db, actor, filter.project_id, 'drift.read');
      if (filter.connection_id !== undefined)
        await requireConnection(db, actor, filter.connection_id, 'drift.read');
      return paginate(
        visibleReportsQuery(
          db,
          { orgId: principal.orgId, userId: principal.userId, seesAll: isOrgAdmin(principal) },
          filter,
        ),
        page,
      );
    },

    async get(actor: Actor, id: string): Promise<DriftReport> {
      requireDrift(actor);
      return (await loadReport(actor, id, 'drift.read')).report;
    },

    /**
     * Accepts the drift: the report's current snapshot becomes the baseline (docs/contract.md §6, fixed), and the
     * connection's older pending reports are acknowledged with it (they describe states before the
     * accepted one; left pending, acknowledging one later would move the baseline back). 409 when
     * the report is not pending any more.
     */
    async acknowledge(actor: Actor, id: string, comment: string | null): Promise<DriftReport> {
      requireDrift(actor);
      const { report, connection } = await loadReport(actor, id, 'drift.acknowledge');
      if (report.status !== 'pending') throw conflict('The drift report is already acknowledged');
      return db.transaction().execute(async (trx) => {
        if (!(await lockConnection(trx, connection.id))) throw notFound(REPORT);
        const at = now();
        const [updated, ...older] = await acknowledgeReports(trx, report, {
          by: actor.principal.userId,
          at,
          comment,
        });
        if (!updated || updated.id !== report.id) {
          throw conflict('The drift report is already acknowledged');
        }
        await setBaseline(trx, connection.id, report.current_snapshot_id);
        await audit.record(trx, actor, {
          action: 'drift.acknowledge',
          projectId: connection.project_id,
          target: { type: 'drift_report', id: report.id, label: connection.name },
          details: {
            connection_id: connection.id,
            baseline_snapshot_id: report.current_snapshot_id,
            severity: report.severity,
            comment,
            also_acknowledged: older.map((row) => row.id),
          },
        });
        return updated;
      });
    },
  };
}

// One drift check of one connection, the code both the manual check (POST …/drift/check) and the
// daily `drift_check` job run: snapshot the live schema, compare it with the baseline, file a report
// when they differ, hand the alert to its job. The check runs inline (the API answers 200 with its
// outcome), bounded by the target's statement timeout, and is recorded afterwards as a finished
// `drift_check` run (docs/contract.md §7), so a crash mid-check never leaves a run "running".
import { randomUUID } from 'node:crypto';
import type { Actor, SystemActor } from '../../core/actors.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { requireFeature } from '../../core/plans.ts';
import { TargetError } from '../../dialects/errors.ts';
import {
  diffSchemas,
  isEmptyDiff,
  type SchemaDiff,
  type SchemaModel,
  summarizeDiff,
} from '../../engine/schema/index.ts';
import { isOutdatedModel, modelVersionOf, SCHEMA_MODEL_VERSION } from '../../engine/schema/version.ts';
import type { Db } from '../../store/db.ts';
import type { Connection, DriftReport, Plan, Snapshot } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { lockConnection } from '../connections/connections.repo.ts';
import type { RunsService } from '../runs/runs.service.ts';
import { findBaseline, hasBaseline, setBaseline } from '../snapshots/snapshots.repo.ts';
import type { SnapshotsService } from '../snapshots/snapshots.service.ts';
import { findPendingReportWithHash, insertReport } from './drift.repo.ts';

/** Hands a new report's alert to the `send_drift_alert` job (src/jobs/drift-alert.ts). */
export interface DriftAlertQueue {
  enqueue(reportId: string): Promise<void>;
}

export interface DriftCheckOutcome {
  /** True when the live schema differs from the baseline (a report is then given). */
  drift: boolean;
  /** The report describing the drift: new, or the pending one that already had this schema. */
  report: DriftReport | null;
  snapshot: Snapshot;
  /** Whether this check filed the report (false when a pending one already described it). */
  newReport: boolean;
  /** Whether the snapshot became the baseline because the connection had none. */
  baselineCreated: boolean;
}

export interface DriftCheckLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export type DriftChecker = ReturnType<typeof createDriftChecker>;

export function createDriftChecker(deps: {
  db: Db;
  audit: AuditService;
  snapshots: Pick<SnapshotsService, 'takeSnapshot'>;
  runs: Pick<RunsService, 'recordFinished'>;
  alerts: DriftAlertQueue;
  logger: DriftCheckLogger;
  now: () => Date;
}) {
  const { db, audit, snapshots, runs, alerts, logger, now } = deps;

  /** Compares the snapshot with the baseline, under the connection's lock, and files what differs. */
  async function compare(
    connection: Connection,
    snapshot: Snapshot,
    actor: Actor | SystemActor,
  ): Promise<Omit<DriftCheckOutcome, 'snapshot'>> {
    return db.transaction().execute(async (trx) => {
      // Serialises with snapshots, acknowledgements and other checks of this connection, so the
      // baseline read here is the one in force and a racing check finds the report filed here.
      if (!(await lockConnection(trx, connection.id))) throw notFound('Connection');
      const baseline = await findBaseline(trx, connection.id);
      if (!baseline) {
        // The baseline went away meanwhile (never through the API); this state becomes it.
        await setBaseline(trx, connection.id, snapshot.id);
        return { drift: false, report: null, newReport: false, baselineCreated: true };
      }
      const none = { drift: false, report: null, newReport: false, baselineCreated: false };
      if (isOutdatedModel(baseline.schema_json as SchemaModel)) {
        // Taken by an older schema model, which did not see some kinds of object: compared with
        // today's snapshot, every such object would look added. It is re-taken, never reported.
        await setBaseline(trx, connection.id, snapshot.id);
        await audit.record(trx, actor, {
          action: 'drift.baseline_retake',
          orgId: connection.org_id,
          projectId: connection.project_id,
          target: { type: 'connection', id: connection.id, label: connection.name },
          details: {
            reason: 'schema model upgraded',
            from_model_version: modelVersionOf(baseline.schema_json as SchemaModel),
            to_model_version: SCHEMA_MODEL_VERSION,
            previous_baseline_id: baseline.id,
            snapshot_id: snapshot.id,
          },
        });
        return { ...none, baselineCreated: true };
      }
      if (baseline.schema_hash === snapshot.schema_hash) return none;
      const diff = diffSchemas(baseline.schema_json as SchemaModel, snapshot.schema_json as SchemaModel);
      if (isEmptyDiff(diff)) return none;
      const existing = await findPendingReportWithHash(trx, connection.id, snapshot.schema_hash);
      if (existing) return { drift: true, report: existing, newReport: false, baselineCreated: false };
      const report = await fileReport(trx, connection, baseline.id, snapshot, diff, actor);
      return { drift: true, report, newReport: true, baselineCreated: false };
    });
  }

  async function fileReport(
    trx: Db,
    connection: Connection,
    baselineId: string,
    snapshot: Snapshot,
    diff: SchemaDiff,
    actor: Actor | SystemActor,
  ): Promise<DriftReport> {
    const { severity, summary } = summarizeDiff(diff);
    // A non-empty diff always has a severity; only cosmetic changes (reformatted defaults) are
    // reported without an alert.
    const highest = severity ?? 'cosmetic';
    const report = await insertReport(trx, {
      id: randomUUID(),
      org_id: connection.org_id,
      project_id: connection.project_id,
      connection_id: connection.id,
      baseline_snapshot_id: baselineId,
      current_snapshot_id: snapshot.id,
      current_schema_hash: snapshot.schema_hash,
      status: 'pending',
      severity: highest,
      summary,
      diff,
      alert_state: highest === 'cosmetic' ? 'none' : 'pending',
      alert_sent_at: null,
      created_at: now(),
      acknowledged_at: null,
      acknowledged_by: null,
      comment: null,
    });
    await audit.record(trx, actor, {
      action: 'drift.detected',
      orgId: connection.org_id,
      projectId: connection.project_id,
      target: { type: 'drift_report', id: report.id, label: connection.name },
      details: { connection_id: connection.id, severity: report.severity, summary },
    });
    return report;
  }

  /** What a failed check says: the classified, password-free text of known errors; nothing internal. */
  function describe(error: unknown, runId: string): string {
    if (error instanceof AppError) return typeof error.detail === 'string' ? error.detail : error.message;
    if (error instanceof TargetError) return error.message;
    logger.error({ err: error, run_id: runId }, 'drift check failed with an unexpected error');
    return `Internal error (logged with run id ${runId})`;
  }

  async function recordRun(
    connection: Connection,
    actor: Actor | SystemActor,
    startedAt: Date,
    outcome: { result: DriftCheckOutcome } | { error: unknown },
  ): Promise<void> {
    const runId = randomUUID();
    const failed = 'error' in outcome;
    const result = failed
      ? null
      : {
          drift: outcome.result.drift,
          report_id: outcome.result.report?.id ?? null,
          new_report: outcome.result.newReport,
          snapshot_id: outcome.result.snapshot.id,
          baseline_created: outcome.result.baselineCreated,
        };
    const error = failed ? describe(outcome.error, runId) : null;
    await db.transaction().execute(async (trx) => {
      await runs.recordFinished(trx, {
        id: runId,
        org_id: connection.org_id,
        project_id: connection.project_id,
        kind: 'drift_check',
        subject_id: connection.id,
        status: failed ? 'failed' : 'succeeded',
        progress_total: 1,
        progress_unit: 'connections',
        params: { trigger: actor.principal ? 'manual' : 'schedule' },
        result,
        error,
        created_by: actor.principal?.userId ?? null,
        created_at: startedAt,
        started_at: startedAt,
        finished_at: now(),
      });
      await audit.record(trx, actor, {
        action: 'drift.check',
        orgId: connection.org_id,
        projectId: connection.project_id,
        target: { type: 'connection', id: connection.id, label: connection.name },
        outcome: failed ? 'failure' : 'success',
        details: { run_id: runId, ...(result ?? { error }) },
      });
    });
  }

  return {
    /**
     * Checks the connection now. Authorization is the caller's business, and so is the plan unless
     * given. Throws what the snapshot throws (404 connection gone, 502 target failing), or the 403 of
     * the plan, after recording the failed run.
     */
    async check(
      connection: Connection,
      actor: Actor | SystemActor,
      options: {
        /** The organization's plan as of now, when the caller has not checked it (the daily job). */
        plan?: Plan;
      } = {},
    ): Promise<DriftCheckOutcome> {
      const startedAt = now();
      let outcome: DriftCheckOutcome;
      try {
        // Here rather than before the call, so that a plan changed since the job listed the
        // connection is recorded on the run like any other reason a check could not be made.
        if (options.plan) requireFeature(options.plan, 'drift_detection');
        const hadBaseline = await hasBaseline(db, connection.id);
        const snapshot = await snapshots.takeSnapshot(connection.id, { baseline: !hadBaseline, actor });
        outcome = hadBaseline
          ? { snapshot, ...(await compare(connection, snapshot, actor)) }
          : { drift: false, report: null, snapshot, newReport: false, baselineCreated: true };
      } catch (error) {
        // The check's own failure is what the caller needs to see, even if recording it fails too
        // (its project deleted meanwhile, say).
        await recordRun(connection, actor, startedAt, { error }).catch((recordError: unknown) => {
          logger.warn({ err: recordError, connection_id: connection.id }, 'failed drift check not recorded');
        });
        throw error;
      }
      await recordRun(connection, actor, startedAt, { result: outcome });
      if (outcome.newReport && outcome.report?.alert_state === 'pending') {
        // After the commit (a send inside a store transaction would wait on it on PGlite). A lost
        // send is not lost for good: each drift_check pass sends the alerts still pending.
        await alerts.enqueue(outcome.report.id).catch((error: unknown) => {
          logger.warn(
            { err: error, report_id: outcome.report?.id },
            'drift alert not queued; the next pass sends it',
          );
        });
      }
      return outcome;
    },
  };
}

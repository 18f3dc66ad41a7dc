// One pass of the daily `drift_check` job: every connection of every Enterprise organization, at
// most `concurrency` at a time, each through the same check as the manual one. A connection that
// fails (down, refused, deleted meanwhile) is recorded on its failed `drift_check` run and in the
// pass's result, and the others go on. The pass also sends again the alerts still pending, whose
// job was lost between a check's commit and its send.

import type { SystemActor } from '../../core/actors.ts';
import { AppError } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import { connectionIdsOnPlan, findConnectionWithPlan, reportsAwaitingAlert } from './drift.repo.ts';
import type { DriftAlertQueue, DriftChecker } from './drift-check.ts';

export const DRIFT_CHECK_ACTOR: SystemActor = {
  principal: null,
  system: 'drift_check',
  ip: 'local',
  userAgent: null,
};

/** Alerts older than this are not sent any more: news a week late is noise. */
const ALERT_RESEND_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** The failures named in a pass's result (all of them are on their runs). */
const ERRORS_LISTED = 50;

export interface DriftPassResult {
  connections: number;
  checked: number;
  drift: number;
  new_reports: number;
  failed: number;
  errors: { connection_id: string; error: string }[];
  alerts_requeued: number;
}

export interface DriftPassLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export function createDriftPass(deps: {
  db: Db;
  checker: Pick<DriftChecker, 'check'>;
  alerts: DriftAlertQueue;
  /** Connections checked at once. */
  concurrency: number;
  logger: DriftPassLogger;
  now: () => Date;
}) {
  const { db, checker, alerts, concurrency, logger, now } = deps;

  async function checkOne(connectionId: string, result: DriftPassResult): Promise<void> {
    try {
      const row = await findConnectionWithPlan(db, connectionId);
      if (!row) return; // deleted since the list was read
      const { plan, ...connection } = row;
      const outcome = await checker.check(connection, DRIFT_CHECK_ACTOR, { plan });
      result.checked += 1;
      if (outcome.drift) result.drift += 1;
      if (outcome.newReport) result.new_reports += 1;
    } catch (error) {
      result.failed += 1;
      const text =
        error instanceof AppError && typeof error.detail === 'string' ? error.detail : String(error);
      if (result.errors.length < ERRORS_LISTED)
        result.errors.push({ connection_id: connectionId, error: text });
      logger.warn({ err: error, connection_id: connectionId }, 'drift check of a connection failed');
    }
  }

  return async function driftPass(): Promise<DriftPassResult> {
    const pending = await reportsAwaitingAlert(db, new Date(now().getTime() - ALERT_RESEND_WINDOW_MS));
    // Sending is idempotent per report (the job id is the report id): a job still queued or retrying
    // is not doubled.
    for (const reportId of pending) await alerts.enqueue(reportId);

    const ids = await connectionIdsOnPlan(db, 'enterprise');
    const result: DriftPassResult = {
      connections: ids.length,
      checked: 0,
      drift: 0,
      new_reports: 0,
      failed: 0,
      errors: [],
      alerts_requeued: pending.length,
    };
    let next = 0;
    const lane = async () => {
      while (next < ids.length) await checkOne(ids[next++]!, result);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, lane));
    const { errors: _, ...counts } = result;
    logger.info({ job: 'drift_check', ...counts }, 'drift check pass finished');
    return result;
  };
}

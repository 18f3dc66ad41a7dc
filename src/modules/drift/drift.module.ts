// Drift detection: the manual check and reports (routes), the scheduled check of every connection of
// every Enterprise organization (`drift_check`), and the alert e-mail of each new report
// (`send_drift_alert`: retried with back-off while SMTP fails, 30 s, 1, 2, 4, 8, 16 min). The alert
// job's id is the report's id, so sending it again while it waits adds nothing, and the report
// records that its alert went out, so nothing is sent twice.
import type { Module, Shared } from '../module.ts';
import { registerDriftRoutes } from './drift.routes.ts';
import { createDriftService } from './drift.service.ts';
import { createDriftAlertSender } from './drift-alert.ts';
import { createDriftChecker, type DriftAlertQueue } from './drift-check.ts';
import { DRIFT_EVENT_SOURCES } from './drift-events.ts';
import { createDriftPass } from './drift-pass.ts';

export const DRIFT_CHECK_JOB = 'drift_check';
export const DRIFT_ALERT_JOB = 'send_drift_alert';

export function driftModule(shared: Shared): Module {
  const { config, db, audit, snapshots, runs, mailer, logger, now } = shared;
  const alerts: DriftAlertQueue = {
    enqueue: (reportId) => shared.jobs.send(DRIFT_ALERT_JOB, { report_id: reportId }, { id: reportId }),
  };
  const checker = createDriftChecker({ db, audit, snapshots, runs, alerts, logger, now });
  const drift = createDriftService({ db, audit, snapshots, checker, now });
  const sendAlert = createDriftAlertSender({ db, audit, mailer, publicUrl: config.publicUrl, logger, now });
  return {
    name: 'drift',
    routes: (api) => registerDriftRoutes(api, { drift }),
    events: ['drift.detected', 'drift.acknowledged'],
    eventSources: DRIFT_EVENT_SOURCES,
    schedules: [
      {
        name: DRIFT_CHECK_JOB,
        cron: config.drift.checkCron,
        run: createDriftPass({
          db,
          checker,
          alerts,
          concurrency: config.drift.checkConcurrency,
          logger,
          now,
        }),
        // Only a pass that fails as a whole (the store) retries; a connection that fails does not.
        retry: { limit: 2, delaySeconds: 300 },
        expireInSeconds: 6 * 60 * 60,
      },
    ],
    queues: [
      {
        name: DRIFT_ALERT_JOB,
        work: (data) => sendAlert(String(data.report_id)),
        retry: { limit: 6, delaySeconds: 30 },
        expireInSeconds: 5 * 60,
        pollingIntervalSeconds: 5,
      },
    ],
  };
}

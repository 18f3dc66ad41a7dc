// Drift's two jobs and what they need: their own pools to the target databases (a `worker` process
// has no API to borrow them from; closed by the function returned), the drift check shared with the
// API, and the mailer. `send_drift_alert` is registered first, so its queue exists before a pass
// sends to it.
import type { Config } from '../config.ts';
import type { TargetDialect } from '../dialects/index.ts';
import type { DialectName } from '../engine/schema/model.ts';
import { createMailer } from '../mail/mailer.ts';
import { createAuditService } from '../modules/audit/audit.service.ts';
import { createTargetAccess } from '../modules/connections/target-access.ts';
import type { Resolver } from '../modules/connections/target-guard.ts';
import { createDriftAlertSender, type DriftAlertSender } from '../modules/drift/drift-alert.ts';
import { createDriftChecker, type DriftChecker } from '../modules/drift/drift-check.ts';
import { createDriftPass, type DriftPassResult } from '../modules/drift/drift-pass.ts';
import { createSnapshotsService } from '../modules/snapshots/snapshots.service.ts';
import { createSecretBox } from '../security/secret-box.ts';
import type { Db } from '../store/db.ts';
import type { Jobs, JobsLogger } from './boss.ts';
import { createDriftAlertQueue, registerDriftAlert } from './drift-alert.ts';
import { registerDriftCheck } from './drift-check.ts';

export type DriftJobsConfig = Pick<Config, 'drift' | 'smtpUrl' | 'mailFrom' | 'publicUrl' | 'targets'>;

export interface DriftJobsDeps {
  db: Db;
  logger: JobsLogger;
  now: () => Date;
  /** Opens the connection passwords sealed by the API (the same SECRET_KEY). */
  secretKey: Buffer;
  config: DriftJobsConfig;
  /** The target dialects; the real ones by default. */
  dialects?: Record<DialectName, TargetDialect>;
  /** How connection hosts resolve for the address guard; the system resolver by default. */
  resolveHost?: Resolver;
  pollingIntervalSeconds?: number;
}

export interface DriftJobHandlers {
  /** One `drift_check` pass. */
  pass: () => Promise<DriftPassResult>;
  /** One `send_drift_alert`. */
  sendAlert: DriftAlertSender;
  /** The check both share with the API's manual check. */
  checker: DriftChecker;
  /** Closes the handlers' target pools and mailer. */
  close: () => Promise<void>;
}

/** The handlers of drift's jobs, built once per process (registerDriftJobs hands them to pg-boss). */
export function createDriftJobHandlers(jobs: Jobs, deps: DriftJobsDeps): DriftJobHandlers {
  const { db, logger, now, config } = deps;
  const { targets } = config;
  const audit = createAuditService({ db, now });
  const box = createSecretBox(deps.secretKey);
  const { connections, close: closeTargets } = createTargetAccess({
    db,
    audit,
    box,
    now,
    targets,
    dialects: deps.dialects,
    resolveHost: deps.resolveHost,
  });
  const snapshots = createSnapshotsService({ db, audit, connections, now });
  const alerts = createDriftAlertQueue(jobs);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, db, logger, now });
  const checker = createDriftChecker({ db, audit, snapshots, alerts, logger, now });
  return {
    pass: createDriftPass({
      db,
      checker,
      alerts,
      concurrency: config.drift.checkConcurrency,
      logger,
      now,
    }),
    sendAlert: createDriftAlertSender({ db, audit, mailer, publicUrl: config.publicUrl, logger, now }),
    checker,
    async close() {
      mailer.close();
      await closeTargets();
    },
  };
}

/** Registers `send_drift_alert` and `drift_check`; returns what closes their pools and mailer. */
export async function registerDriftJobs(jobs: Jobs, deps: DriftJobsDeps): Promise<() => Promise<void>> {
  const { logger, pollingIntervalSeconds } = deps;
  const handlers = createDriftJobHandlers(jobs, deps);
  await registerDriftAlert(jobs, { send: handlers.sendAlert, logger, pollingIntervalSeconds });
  await registerDriftCheck(jobs, {
    cron: deps.config.drift.checkCron,
    pass: handlers.pass,
    logger,
    pollingIntervalSeconds,
  });
  return handlers.close;
}

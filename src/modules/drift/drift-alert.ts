// Sends the alert of one drift report (the `send_drift_alert` job's work) to the project's admins:
// its members with the project role admin, and the organization's owners and admins, who act as
// admins of every project. A report's alert is sent once: the report records it, so a retried or
// repeated job finds it sent and stops. A failure to send throws, for the job to retry.

import type { SystemActor } from '../../core/actors.ts';
import type { Mailer } from '../../mail/mailer.ts';
import type { Db } from '../../store/db.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { findAlertRecipients, findAlertSubject, findReportById, markAlertSent } from './drift.repo.ts';
import { composeDriftAlert } from './drift-alert-message.ts';

const ACTOR: SystemActor = { principal: null, system: 'send_drift_alert', ip: 'local', userAgent: null };

export type DriftAlertOutcome =
  | { status: 'sent'; via: 'smtp' | 'outbox'; recipients: string[] }
  /** Nothing to do: the report is gone, or its alert was sent already or is not wanted (cosmetic). */
  | { status: 'skipped'; reason: 'gone' | 'sent' | 'none' | 'no_recipients' };

export interface DriftAlertLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export function createDriftAlertSender(deps: {
  db: Db;
  audit: AuditService;
  mailer: Mailer;
  publicUrl: string;
  logger: DriftAlertLogger;
  now: () => Date;
}) {
  const { db, audit, mailer, publicUrl, logger, now } = deps;

  async function markSent(report: { id: string; org_id: string; project_id: string }, details: object) {
    await db.transaction().execute(async (trx) => {
      if (!(await markAlertSent(trx, report.id, now()))) return;
      await audit.record(trx, ACTOR, {
        action: 'drift.alert_sent',
        orgId: report.org_id,
        projectId: report.project_id,
        target: { type: 'drift_report', id: report.id },
        details: { ...details },
      });
    });
  }

  return async function sendDriftAlert(reportId: string): Promise<DriftAlertOutcome> {
    const report = await findReportById(db, reportId);
    if (!report) return { status: 'skipped', reason: 'gone' };
    if (report.alert_state !== 'pending') return { status: 'skipped', reason: report.alert_state };
    const subject = await findAlertSubject(db, report);
    if (!subject) return { status: 'skipped', reason: 'gone' };
    const recipients = await findAlertRecipients(db, { id: report.project_id, org_id: report.org_id });
    if (recipients.length === 0) {
      // An organization always has an owner; an empty list means every admin is deactivated.
      logger.warn({ report_id: report.id }, 'drift alert has no recipient: nobody administers the project');
      await markSent(report, { recipients: [] });
      return { status: 'skipped', reason: 'no_recipients' };
    }
    const message = composeDriftAlert({ report, ...subject, publicUrl });
    const receipt = await mailer.send({
      to: recipients,
      subject: message.subject,
      text: message.text,
      html: message.html,
    });
    await markSent(report, { via: receipt.via, recipients: receipt.accepted, rejected: receipt.rejected });
    logger.info(
      { report_id: report.id, via: receipt.via, recipients: receipt.accepted.length },
      'drift alert sent',
    );
    return { status: 'sent', via: receipt.via, recipients: receipt.accepted };
  };
}

export type DriftAlertSender = ReturnType<typeof createDriftAlertSender>;

// `send_drift_alert`: one job per drift report that warrants an e-mail, retried with exponential
// back-off while the SMTP server fails (30 s, 1, 2, 4, 8, 16 min). The job's id is the report's id,
// so sending it again while it waits or retries adds nothing (pg-boss inserts ON CONFLICT DO
// NOTHING), and the report itself records that its alert went out, so nothing is sent twice.
import type { DriftAlertSender } from '../modules/drift/drift-alert.ts';
import type { DriftAlertQueue } from '../modules/drift/drift-check.ts';
import { ensureQueue, type Jobs, type JobsLogger } from './boss.ts';
import { jobNames } from './names.ts';

export function createDriftAlertQueue(jobs: Jobs): DriftAlertQueue {
  return {
    async enqueue(reportId) {
      await jobs.boss.send(jobNames.sendDriftAlert, { report_id: reportId }, { id: reportId });
    },
  };
}

export async function registerDriftAlert(
  jobs: Jobs,
  {
    send,
    logger,
    pollingIntervalSeconds = 5,
  }: { send: DriftAlertSender; logger: JobsLogger; pollingIntervalSeconds?: number },
): Promise<void> {
  const name = jobNames.sendDriftAlert;
  await ensureQueue(jobs, name, {
    policy: 'standard',
    retryLimit: 6,
    retryDelay: 30,
    retryBackoff: true,
    expireInSeconds: 5 * 60,
  });
  await jobs.boss.work<{ report_id: string }>(name, { pollingIntervalSeconds }, async ([job]) => {
    if (!job) return undefined;
    try {
      return await send(job.data.report_id);
    } catch (error) {
      // pg-boss records the failure on the job and retries it; the log is where an operator sees it.
      logger.error({ err: error, job: name, report_id: job.data.report_id }, 'drift alert not sent');
      throw error;
    }
  });
}

// Ends what ran out of time in the approval workflow: pending approvals after 7 days (their waiting
// runs are cancelled), access requests left undecided for 24 hours, and grants past `expires_at`.
// Every 15 minutes: a grant stops counting at `expires_at` whatever the job does (the authorization
// checks the time); the job writes the transition down and cancels what waited.

import type { SystemActor } from '../core/actors.ts';
import { expireEndedGrantsNow } from '../modules/access-requests/grant-expiry.ts';
import { expireDueApprovals } from '../modules/approvals/approval-expiry.ts';
import { createAuditService } from '../modules/audit/audit.service.ts';
import type { Db } from '../store/db.ts';
import { ensureQueue, type Jobs, type JobsLogger } from './boss.ts';
import { jobNames } from './names.ts';

export const APPROVAL_EXPIRY_CRON = '*/15 * * * *';

const ACTOR: SystemActor = { principal: null, system: jobNames.approvalExpiry, ip: 'local', userAgent: null };

export interface ApprovalExpiryDeps {
  db: Db;
  logger: JobsLogger;
  now?: () => Date;
}

/** One pass; returns how many approvals and grants it expired. */
export function createApprovalExpiry({ db, logger, now = () => new Date() }: ApprovalExpiryDeps) {
  const deps = { audit: createAuditService({ db, now }), now };
  return async (): Promise<{ approvals_expired: number; grants_expired: number }> => {
    const approvalsExpired = await expireDueApprovals(db, deps, ACTOR);
    const grantsExpired = await expireEndedGrantsNow(db, deps, ACTOR);
    logger.info(
      { job: jobNames.approvalExpiry, approvals_expired: approvalsExpired, grants_expired: grantsExpired },
      'approvals and grants expired',
    );
    return { approvals_expired: approvalsExpired, grants_expired: grantsExpired };
  };
}

export async function registerApprovalExpiry(
  jobs: Jobs,
  {
    cron = APPROVAL_EXPIRY_CRON,
    pollingIntervalSeconds = 10,
    ...deps
  }: ApprovalExpiryDeps & { cron?: string; pollingIntervalSeconds?: number },
): Promise<void> {
  const name = jobNames.approvalExpiry;
  const expire = createApprovalExpiry(deps);
  // `stately` like session_cleanup: passes never pile up behind a slow one or across workers.
  await ensureQueue(jobs, name, {
    policy: 'stately',
    retryLimit: 3,
    retryDelay: 30,
    retryBackoff: true,
    expireInSeconds: 10 * 60,
  });
  await jobs.boss.schedule(name, cron, null, { tz: 'UTC' });
  await jobs.boss.work(name, { pollingIntervalSeconds }, async () => {
    try {
      return await expire();
    } catch (error) {
      deps.logger.error({ err: error, job: name }, 'approval expiry failed');
      throw error;
    }
  });
}

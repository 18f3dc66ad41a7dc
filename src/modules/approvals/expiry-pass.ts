// Ends what ran out of time in the approval workflow: pending approvals after 7 days (their waiting
// runs are cancelled), access requests left undecided for 24 hours, and grants past `expires_at`.
// Every 15 minutes: a grant stops counting at `expires_at` whatever the job does (the authorization
// checks the time); the job writes the transition down and cancels what waited.

import { systemActor } from '../../core/actors.ts';
import type { Db } from '../../store/db.ts';
import { expireEndedGrantsNow } from '../access-requests/grant-expiry.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Logger } from '../module.ts';
import { expireDueApprovals } from './approval-expiry.ts';

export const APPROVAL_EXPIRY_JOB = 'approval_expiry';
export const APPROVAL_EXPIRY_CRON = '*/15 * * * *';

const ACTOR = systemActor(APPROVAL_EXPIRY_JOB);

export interface ApprovalExpiryDeps {
  db: Db;
  logger: Logger;
  audit: AuditService;
  now?: () => Date;
}

/** One pass; returns how many approvals and grants it expired. */
export function createApprovalExpiry({ db, logger, audit, now = () => new Date() }: ApprovalExpiryDeps) {
  const deps = { audit, now };
  return async (): Promise<{ approvals_expired: number; grants_expired: number }> => {
    const approvalsExpired = await expireDueApprovals(db, deps, ACTOR);
    const grantsExpired = await expireEndedGrantsNow(db, deps, ACTOR);
    logger.info(
      { job: APPROVAL_EXPIRY_JOB, approvals_expired: approvalsExpired, grants_expired: grantsExpired },
      'approvals and grants expired',
    );
    return { approvals_expired: approvalsExpired, grants_expired: grantsExpired };
  };
}

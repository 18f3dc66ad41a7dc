// Approvals: deciding them, and ending what ran out of time (approvals, access requests, grants).
import type { Module, Shared } from '../module.ts';
import { APPROVAL_EVENT_SOURCES } from './approval-events.ts';
import { registerApprovalsRoutes } from './approvals.routes.ts';
import { createApprovalsService } from './approvals.service.ts';
import { APPROVAL_EXPIRY_CRON, APPROVAL_EXPIRY_JOB, createApprovalExpiry } from './expiry-pass.ts';

export function approvalsModule({ db, audit, runs, runKinds, logger, now }: Shared): Module {
  const approvals = createApprovalsService({ db, audit, runs, runKinds, now });
  return {
    name: 'approvals',
    routes: (api) => registerApprovalsRoutes(api, { approvals }),
    events: ['approval.requested', 'approval.decided'],
    eventSources: APPROVAL_EVENT_SOURCES,
    schedules: [
      {
        name: APPROVAL_EXPIRY_JOB,
        cron: APPROVAL_EXPIRY_CRON,
        run: createApprovalExpiry({ db, audit, logger, now }),
        retry: { limit: 3, delaySeconds: 30 },
        expireInSeconds: 10 * 60,
      },
    ],
  };
}

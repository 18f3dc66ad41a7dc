// The one way an approval leaves `pending` (or an unused `approved` is voided), with what follows
// from it in the same transaction: runs waiting on it start (granted) or are cancelled (rejected,
// expired, voided); an access request becomes a grant or ends. Every step is audited. A granted
// run starts only if its requester may still do it (src/modules/runs/run-requester.ts).

import type { Actor, SystemActor } from '../../core/actors.ts';
import type { Db } from '../../store/db.ts';
import type { Approval, ApprovalStatus, Run } from '../../store/tables.ts';
import { onAccessApprovalResolved } from '../access-requests/access-request-transitions.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { RunKinds } from '../runs/run-kinds.ts';
import { requesterRefusal } from '../runs/run-requester.ts';
import {
  cancelRunsOfApproval,
  cancelWaitingRun,
  lockRunsOfApproval,
  queueWaitingRun,
} from '../runs/runs.repo.ts';
import { protectionRefusal } from './approval-protection.ts';
import { consumeApproval, moveApproval } from './approvals.repo.ts';

const VERB: Record<Exclude<ApprovalStatus, 'pending'>, string> = {
  approved: 'approve',
  rejected: 'reject',
  cancelled: 'cancel',
  expired: 'expire',
};

export function approvalEvent(action: string, approval: Approval, details?: Record<string, unknown>) {
  return {
    action,
    orgId: approval.org_id,
    projectId: approval.project_id,
    target: { type: 'approval', id: approval.id, label: approval.kind },
    details: { kind: approval.kind, subject_id: approval.subject_id, ...details },
  };
}

export interface TransitionDeps {
  audit: AuditService;
  now: () => Date;
  /** The registered run kinds: a granted approval releases a run only if its requester still may. */
  runKinds?: RunKinds;
}

/**
 * Moves the approval to `to` and applies the outcome. Returns the runs that became `queued`: the
 * caller hands them to the queue after the commit. Nothing happens (and [] is returned) when the
 * approval was no longer in the expected state, so racing transitions resolve it once.
 */
export async function resolveApproval(
  trx: Db,
  { audit, now, runKinds }: TransitionDeps,
  actor: Actor | SystemActor,
  approval: Approval,
  to: Exclude<ApprovalStatus, 'pending'>,
  details: Record<string, unknown> = {},
): Promise<Run[]> {
  const at = now();
  const moved = await moveApproval(trx, approval.id, approval.status, to, at);
  if (!moved) return [];
  await audit.record(trx, actor, approvalEvent(`approval.${VERB[to]}`, moved, details));
  if (moved.kind === 'access_request') {
    await onAccessApprovalResolved(trx, audit, actor, moved, at);
    return [];
  }
  if (to === 'approved') {
    if (!runKinds) throw new Error('Granting an approval needs the registered run kinds');
    const released = await releaseRuns(trx, { audit, runKinds }, actor, moved, at);
    // The waiting runs are the execution this approval was for; with none left (cancelled while
    // waiting, or their requester no longer allowed), the approval stays usable for the next gate
    // call on the same content, which checks its own caller's rights.
    if (released.length > 0) await consumeApproval(trx, moved.id, at);
    return released;
  }
  const cancelled = await cancelRunsOfApproval(trx, moved.id, at);
  for (const run of cancelled)
    await audit.record(trx, actor, runEvent('run.cancel', run, moved, { reason: `approval ${to}` }));
  return [];
}

/**
 * Queues the runs the granted approval held back, each only if its requester may still do it: a
 * run executes with its requester's rights at release, not at request. The others are cancelled
 * with the reason in `error`; their subject (a patch, a migration) was never touched while they
 * waited, so nothing is left to undo.
 */
async function releaseRuns(
  trx: Db,
  { audit, runKinds }: { audit: AuditService; runKinds: RunKinds },
  actor: Actor | SystemActor,
  approval: Approval,
  at: Date,
): Promise<Run[]> {
  const released: Run[] = [];
  for (const run of await lockRunsOfApproval(trx, approval.id)) {
    const refusal =
      (await requesterRefusal(trx, run, runKinds)) ?? (await protectionRefusal(trx, run, approval, runKinds));
    if (refusal === null) {
      const queued = await queueWaitingRun(trx, run.id);
      if (!queued) continue;
      released.push(queued);
      await audit.record(trx, actor, runEvent('run.release', queued, approval));
    } else {
      const cancelled = await cancelWaitingRun(trx, run.id, at, refusal);
      if (cancelled)
        await audit.record(
          trx,
          actor,
          runEvent('run.cancel', cancelled, approval, { reason: refusal, requested_by: run.created_by }),
        );
    }
  }
  return released;
}

function runEvent(action: string, run: Run, approval: Approval, details?: Record<string, unknown>) {
  return {
    action,
    orgId: run.org_id,
    projectId: run.project_id,
    target: { type: 'run', id: run.id, label: run.kind },
    details: { approval_id: approval.id, status: run.status, ...details },
  };
}

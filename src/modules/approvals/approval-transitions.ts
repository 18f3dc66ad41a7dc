// The one way an approval leaves `pending` (or an unused `approved` is voided), with what follows
// from it in the same transaction: runs waiting on it start (granted) or are cancelled (rejected,
// expired, voided); an access request becomes a grant or ends. Every step is audited.
import type { Actor } from '../../http/context.ts';
import type { Db } from '../../store/db.ts';
import type { Approval, ApprovalStatus, Run } from '../../store/tables.ts';
import { onAccessApprovalResolved } from '../access-requests/access-request-transitions.ts';
import type { AuditService, SystemActor } from '../audit/audit.service.ts';
import { cancelRunsOfApproval, queueRunsOfApproval } from '../runs/runs.repo.ts';
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
}

/**
 * Moves the approval to `to` and applies the outcome. Returns the runs that became `queued`: the
 * caller hands them to the queue after the commit. Nothing happens (and [] is returned) when the
 * approval was no longer in the expected state, so racing transitions resolve it once.
 */
export async function resolveApproval(
  trx: Db,
  { audit, now }: TransitionDeps,
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
    const released = await queueRunsOfApproval(trx, moved.id);
    // The waiting runs are the execution this approval was for; with none left (cancelled while
    // waiting), the approval stays usable for the next gate call on the same content.
    if (released.length > 0) await consumeApproval(trx, moved.id, at);
    for (const run of released) await audit.record(trx, actor, runEvent('run.release', run, moved));
    return released;
  }
  const cancelled = await cancelRunsOfApproval(trx, moved.id, at);
  for (const run of cancelled)
    await audit.record(trx, actor, runEvent('run.cancel', run, moved, { reason: `approval ${to}` }));
  return [];
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

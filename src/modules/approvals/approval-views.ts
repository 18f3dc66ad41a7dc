// Approvals as a person reads them (docs/contract.md §10): with their decisions, who asks (`requester`), and
// whether the reader may decide now (`can_decide`), so an inbox shows an Approve button only where
// pressing it can work. A handful of queries for any number of approvals: decisions, requesters,
// and the reader's rights once per project.
import type { Actor } from '../../core/actors.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { Approval, ApprovalDecision } from '../../store/tables.ts';
import { callerRights } from '../projects/projects.access.ts';
import { decisionsOf, requestersOf } from './approvals.repo.ts';
import { type ApprovalResponse, toApprovalResponse } from './approvals.schemas.ts';

/** Whether `reader` may approve `approval` now: the same rules `decide` enforces. */
function canDecide(
  approval: Approval,
  decisions: ApprovalDecision[],
  reader: Actor,
  may: (action: Action) => boolean,
  now: Date,
): boolean {
  const userId = reader.principal.userId;
  return (
    approval.status === 'pending' &&
    approval.expires_at > now &&
    may('approval.decide') &&
    (approval.requested_by !== userId || approval.allow_self_approval) &&
    !decisions.some((d) => d.approval_id === approval.id && d.user_id === userId)
  );
}

/** The approvals as answered to `reader` at `now`; with no reader (an event's payload) nobody can decide. */
export async function approvalViews(
  db: Db,
  approvals: Approval[],
  reader?: { actor: Actor; now: Date },
): Promise<ApprovalResponse[]> {
  if (approvals.length === 0) return [];
  const decisions = await decisionsOf(
    db,
    approvals.map((a) => a.id),
  );
  const requesters = await requestersOf(db, [...new Set(approvals.map((a) => a.requested_by))]);
  const rights = new Map<string, (action: Action) => boolean>();
  if (reader)
    for (const projectId of new Set(approvals.map((a) => a.project_id)))
      rights.set(projectId, await callerRights(db, reader.actor, projectId));
  return approvals.map((approval) => {
    const may = rights.get(approval.project_id);
    return toApprovalResponse(approval, decisions, {
      requester: requesters.get(approval.requested_by) ?? null,
      can_decide:
        reader !== undefined &&
        may !== undefined &&
        canDecide(approval, decisions, reader.actor, may, reader.now),
    });
  });
}

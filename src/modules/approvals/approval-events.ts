// The approvals' domain events (docs/contract.md §11.1), read from the audited changes that are them: a request
// for approval, and whatever ends it: granted, rejected, cancelled or expired (a chat channel that
// showed the request needs to know it is no longer pending; `data.status` says which). `data` is
// the approval as `GET /approvals/{id}` answers it, read in the change's transaction.
import type { Db } from '../../store/db.ts';
import type { EventSource } from '../events/events.service.ts';
import { approvalViews } from './approval-views.ts';
import { approvalsByIds } from './approvals.repo.ts';

/** The approval as an event carries it: read by no one in particular, so `can_decide` is false. */
async function approvalData(db: Db, id: string) {
  const [approval] = await approvalsByIds(db, [id]);
  return approval && (await approvalViews(db, [approval]))[0];
}

export const APPROVAL_EVENT_SOURCES: EventSource[] = [
  { action: 'approval.request', type: 'approval.requested', data: approvalData },
  { action: 'approval.approve', type: 'approval.decided', data: approvalData },
  { action: 'approval.reject', type: 'approval.decided', data: approvalData },
  { action: 'approval.cancel', type: 'approval.decided', data: approvalData },
  { action: 'approval.expire', type: 'approval.decided', data: approvalData },
];

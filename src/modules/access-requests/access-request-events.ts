// The access requests' domain events (docs/contract.md §11.1), read from the audited changes that are them:
// created, decided (granted or rejected), expired undecided. `data` is the request as
// `GET /access-requests/{id}` answers it, read in the change's transaction.
import type { Db } from '../../store/db.ts';
import { approvalViews } from '../approvals/approval-views.ts';
import { approvalsByIds } from '../approvals/approvals.repo.ts';
import type { EventSource } from '../events/events.service.ts';
import { toAccessRequestResponse } from './access-requests.schemas.ts';

async function accessRequestData(db: Db, id: string) {
  const request = await db.selectFrom('access_requests').selectAll().where('id', '=', id).executeTakeFirst();
  if (!request) return undefined;
  const [approval] = await approvalsByIds(db, [request.approval_id]);
  if (!approval) return undefined;
  const [view] = await approvalViews(db, [approval]);
  return toAccessRequestResponse(request, view!);
}

export const ACCESS_REQUEST_EVENT_SOURCES: EventSource[] = [
  { action: 'access_request.create', type: 'access_request.created', data: accessRequestData },
  { action: 'access_request.activate', type: 'access_request.decided', data: accessRequestData },
  { action: 'access_request.reject', type: 'access_request.decided', data: accessRequestData },
  { action: 'access_request.expire', type: 'access_request.expired', data: accessRequestData },
];

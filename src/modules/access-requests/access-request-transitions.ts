// What happens to an access request when its approval is decided or runs out: granted (active for
// its duration), rejected, or expired undecided. Called by the approvals module inside the
// transaction of the approval's own change, so both commit (and are audited) together.

import type { Actor, SystemActor } from '../../core/actors.ts';
import type { Db } from '../../store/db.ts';
import type { AccessRequest, Approval } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { activateAccessRequest, endPendingAccessRequest } from './access-requests.repo.ts';

export function accessRequestEvent(
  action: string,
  request: AccessRequest,
  details?: Record<string, unknown>,
) {
  return {
    action,
    orgId: request.org_id,
    projectId: request.project_id,
    target: { type: 'access_request', id: request.id, label: request.role },
    details: {
      user_id: request.user_id,
      role: request.role,
      connection_id: request.connection_id,
      status: request.status,
      ...details,
    },
  };
}

export async function onAccessApprovalResolved(
  trx: Db,
  audit: AuditService,
  actor: Actor | SystemActor,
  approval: Approval,
  now: Date,
): Promise<void> {
  if (approval.status === 'approved') {
    const granted = await activateAccessRequest(trx, approval.id, now);
    if (granted)
      await audit.record(
        trx,
        actor,
        accessRequestEvent('access_request.activate', granted, {
          expires_at: granted.expires_at?.toISOString(),
        }),
      );
    return;
  }
  // A cancelled access approval (not made by this service today) ends its request as rejected.
  const to = approval.status === 'expired' ? 'expired' : 'rejected';
  const ended = await endPendingAccessRequest(trx, approval.id, to, now);
  if (ended)
    await audit.record(
      trx,
      actor,
      accessRequestEvent(`access_request.${to === 'expired' ? 'expire' : 'reject'}`, ended),
    );
}

// Expires pending approvals whose time ran out (7 days; 24 hours for access requests): the runs
// waiting on them are cancelled and their access requests expire. Run by the `approval_expiry` job.

import type { SystemActor } from '../../core/actors.ts';
import type { Db } from '../../store/db.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { resolveApproval } from './approval-transitions.ts';
import { duePendingApprovals, lockApproval } from './approvals.repo.ts';

const BATCH = 100;

/** Returns how many approvals it expired. One transaction per approval keeps each lock short. */
export async function expireDueApprovals(
  db: Db,
  deps: { audit: AuditService; now: () => Date },
  actor: SystemActor,
): Promise<number> {
  let expired = 0;
  for (;;) {
    const due = await duePendingApprovals(db, deps.now(), BATCH);
    for (const id of due) {
      await db.transaction().execute(async (trx) => {
        const approval = await lockApproval(trx, id);
        // Decided or voided since it was listed: nothing to expire.
        if (approval?.status !== 'pending') return;
        await resolveApproval(trx, deps, actor, approval, 'expired');
        expired++;
      });
    }
    if (due.length < BATCH) return expired;
  }
}

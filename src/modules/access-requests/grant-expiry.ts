// Marks grants whose time ran out as expired, with an audit entry each. The authorization already
// ignores a grant past its `expires_at`; this makes the record (and the audit trail) say so.

import type { SystemActor } from '../../core/actors.ts';
import type { Db } from '../../store/db.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { accessRequestEvent } from './access-request-transitions.ts';
import { expireEndedGrants } from './access-requests.repo.ts';

const BATCH = 100;

/** Returns how many grants it expired. */
export async function expireEndedGrantsNow(
  db: Db,
  deps: { audit: AuditService; now: () => Date },
  actor: SystemActor,
): Promise<number> {
  let expired = 0;
  for (;;) {
    const count = await db.transaction().execute(async (trx) => {
      const ended = await expireEndedGrants(trx, deps.now(), BATCH);
      for (const grant of ended)
        await deps.audit.record(trx, actor, accessRequestEvent('access_request.expire', grant));
      return ended.length;
    });
    expired += count;
    if (count < BATCH) return expired;
  }
}

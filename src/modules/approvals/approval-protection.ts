// The last check before a granted approval releases a run that writes to a connection: the
// connection may have become protected (API §6) while the run waited, under an approval asked on
// the terms of then (its requester allowed to approve it). A protected write needs an approval by
// someone other than the requester, so such a run is not released: it is cancelled with the reason,
// and asking again goes through the gate on today's terms. The run names the connection it writes
// to in its params (`writes_to`), as the gate's writesTo did when it was asked for.
import type { Db } from '../../store/db.ts';
import type { Approval, Run } from '../../store/tables.ts';
import { findConnectionById } from '../connections/connections.repo.ts';
import { decisionsOf } from './approvals.repo.ts';

/** Run params naming the connection the run writes to. */
export const writesToParam = (connectionId: string) => ({ writes_to: connectionId });

/** Why the granted run may not write, or null when it may. */
export async function protectionRefusal(db: Db, run: Run, approval: Approval): Promise<string | null> {
  const connectionId = (run.params as { writes_to?: unknown } | null)?.writes_to;
  if (typeof connectionId !== 'string') return null;
  const connection = await findConnectionById(db, connectionId);
  if (!connection?.protected) return null;
  const byOthers = (await decisionsOf(db, [approval.id])).some(
    (d) => d.decision === 'approve' && d.user_id !== run.created_by,
  );
  return byOthers
    ? null
    : `Connection "${connection.name}" is protected: the run needs an approval by someone other than its requester; request it again`;
}

// The last check before a granted approval releases a run that writes to a connection: the
// connection may have become protected (API §6) while the run waited, under an approval asked on
// the terms of then (its requester allowed to approve it). A protected write needs an approval by
// someone other than the requester, so such a run is not released: it is cancelled with the reason,
// and asking again goes through the gate on today's terms. Which connection a run writes to is what
// its kind's registration says (`connectionOf`, src/modules/runs/run-kinds.ts).
import type { Db } from '../../store/db.ts';
import type { Approval, Run } from '../../store/tables.ts';
import { findConnectionById } from '../connections/connections.repo.ts';
import type { RunKinds } from '../runs/run-kinds.ts';
import { decisionsOf } from './approvals.repo.ts';

/** Why the granted run may not write, or null when it may. */
export async function protectionRefusal(
  db: Db,
  run: Run,
  approval: Approval,
  runKinds: RunKinds,
): Promise<string | null> {
  const connectionId = await runKinds.get(run.kind)?.connectionOf(db, run);
  if (connectionId === undefined) return null;
  const connection = await findConnectionById(db, connectionId);
  if (!connection?.protected) return null;
  const byOthers = (await decisionsOf(db, [approval.id])).some(
    (d) => d.decision === 'approve' && d.user_id !== run.created_by,
  );
  return byOthers
    ? null
    : `Connection "${connection.name}" is protected: the run needs an approval by someone other than its requester; request it again`;
}

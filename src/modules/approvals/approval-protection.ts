// The last check before a granted approval releases a run: a connection it writes to, or reads rows
// out of, may have become protected (docs/contract.md §6) while the run waited, under an approval asked on the
// terms of then (its requester allowed to approve it). Such a run needs an approval by someone
// other than the requester, so it is not released: it is cancelled with the reason, and asking
// again goes through the gate on today's terms. Which connections a run touches is what its kind's
// registration says (`touches`, src/modules/runs/run-kinds.ts).
import type { Db } from '../../store/db.ts';
import type { Approval, Run } from '../../store/tables.ts';
import { findConnectionById } from '../connections/connections.repo.ts';
import type { RunKinds } from '../runs/run-kinds.ts';
import { decisionsOf } from './approvals.repo.ts';

/** Why the granted run may not go on, or null when it may. */
export async function protectionRefusal(
  db: Db,
  run: Run,
  approval: Approval,
  runKinds: RunKinds,
): Promise<string | null> {
  const touched = runKinds.get(run.kind)?.touches(run.params);
  if (!touched) return null;
  const guarded = [...touched.writes, ...(touched.readsRows ?? [])];
  const byOthers = (await decisionsOf(db, [approval.id])).some(
    (d) => d.decision === 'approve' && d.user_id !== run.created_by,
  );
  if (byOthers) return null;
  for (const id of guarded) {
    const connection = await findConnectionById(db, id);
    if (connection?.protected)
      return `Connection "${connection.name}" is protected: the run needs an approval by someone other than its requester; request it again`;
  }
  return null;
}

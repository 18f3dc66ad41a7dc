// The domain events of a run's end (docs/contract.md §11.1), emitted in the transaction that records the end: the
// kind's own event (a module declares it with its run kind, e.g. patch_execute → patch.executed or
// patch.failed) and `run.failed` for every failed run. `data` is the run as the API returns it.
import type { EventType } from '../../core/vocabulary.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { EventsService } from '../events/events.service.ts';
import type { RunKinds } from './run-kinds.ts';
import { findRunById, finishRun } from './runs.repo.ts';
import { toRunResponse } from './runs.schemas.ts';

export type RunOutcome = Parameters<typeof finishRun>[2];

export async function finishRunWithEvents(
  db: Db,
  deps: { events?: EventsService; kinds: RunKinds },
  runId: string,
  outcome: RunOutcome,
  at: Date,
): Promise<void> {
  const { events, kinds } = deps;
  if (!events) {
    await finishRun(db, runId, outcome, at);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await finishRun(trx, runId, outcome, at);
    const run = await findRunById(trx, runId);
    // Not ended by this call (another ended it first): its events were someone else's to emit.
    if (!run || run.status !== outcome.status || run.finished_at?.getTime() !== at.getTime()) return;
    await emitRunEnd(trx, { events, kinds }, run);
  });
}

/** The events of an ended run, in the caller's transaction (the one that ended it). */
export async function emitRunEnd(
  trx: Db,
  { events, kinds }: { events: EventsService; kinds: RunKinds },
  run: Run,
): Promise<void> {
  const declared = kinds.get(run.kind)?.events;
  const types: EventType[] = [];
  if (run.status === 'succeeded' && declared?.succeeded) types.push(declared.succeeded);
  if (run.status === 'failed') {
    if (declared?.failed) types.push(declared.failed);
    types.push('run.failed');
  }
  const data = toRunResponse(run);
  for (const type of types)
    await events.emit(trx, { type, orgId: run.org_id, projectId: run.project_id, data });
}

// A patch's state machine, written once: which actions each status allows, read by the service
// (refusing with 409), by the run handlers (moving the status) and by `allowed_actions`, the list
// a client shows instead of deriving the rules itself.
//
//   draft ──execute──▶ executing ──▶ executed ──rollback──▶ executing ──▶ rolled_back
//     ▲                   │              ▲                      │
//     └──── failed ◀──────┘              └──────────────────────┘ (rollback failed: still executed)
//
// A failed execute changed nothing (one transaction on the target, engines without transactions
// refused), so a failed patch is edited and executed again like a draft.
import type { Action } from '../../security/policy.ts';
import type { Patch, PatchStatus, RunStatus } from '../../store/tables.ts';

export const PATCH_ACTIONS = ['edit', 'dry_run', 'execute', 'rollback', 'delete'] as const;
export type PatchAction = (typeof PATCH_ACTIONS)[number];

/** The policy action (role and key scope) each needs. */
export const PATCH_ACTION_RIGHTS: Record<PatchAction, Action> = {
  edit: 'patch.edit',
  dry_run: 'patch.dry_run',
  execute: 'patch.execute',
  rollback: 'patch.rollback',
  delete: 'patch.delete',
};

/** The statuses an execution starts from. */
export const EXECUTABLE: readonly PatchStatus[] = ['draft', 'failed'];

/** A patch as the caller sees it: with what they may do to it now. */
export type PatchView = Patch & { allowed_actions: PatchAction[] };

type PatchState = Pick<Patch, 'status' | 'statements' | 'execute_run_id' | 'backups_dropped_at'>;

/** Why the patch, as it is, cannot take `action` (rights and runs in flight apart), or null. */
export function patchStateRefusal(patch: PatchState, action: PatchAction): string | null {
  const { status } = patch;
  switch (action) {
    case 'edit':
    case 'dry_run':
    case 'execute':
      return EXECUTABLE.includes(status)
        ? null
        : `The patch is ${status}; only a draft or failed patch can be ${action === 'dry_run' ? 'dry-run' : `${action}ed`}`;
    case 'rollback': {
      if (status !== 'executed' || patch.execute_run_id === null)
        return `The patch is ${status}; only an executed patch can be rolled back`;
      if (patch.backups_dropped_at !== null)
        return `The patch's backups were dropped on ${patch.backups_dropped_at.toISOString()} (BACKUP_RETENTION_DAYS): it cannot be rolled back`;
      const irreversible = patch.statements.filter((s) => !s.reversible);
      if (irreversible.length > 0)
        return `This patch cannot be rolled back: ${irreversible.map((s) => `statement ${s.index + 1}: ${s.irreversible_reason ?? 'it has no rollback key'}`).join('; ')}`;
      return null;
    }
    case 'delete':
      if (status === 'executing') return 'The patch is executing; try again when it is done';
      // The record of what was done, and the only way to its backup tables, stays while they do.
      if (patch.execute_run_id !== null && patch.backups_dropped_at === null)
        return 'An executed patch is kept until its backups are dropped (BACKUP_RETENTION_DAYS after execution)';
      return null;
  }
}

/**
 * Why a run of the patch in flight stops `action`, or null: execute and rollback wait for it to
 * end (one run of a patch at a time); an edit or delete while it waits for approval voids that
 * approval and cancels it, but not once it is queued or running, since the run would read the patch.
 */
export function inFlightRefusal(
  action: PatchAction,
  run: { id: string; status: RunStatus } | undefined,
): string | null {
  if (!run || action === 'dry_run') return null;
  if ((action === 'edit' || action === 'delete') && run.status === 'awaiting_approval') return null;
  return `Run ${run.id} of this patch is ${run.status.replace('_', ' ')}; wait for it to end or cancel it`;
}

/** What the caller may do to the patch now: its state and its run in flight allow it, and `may` says their role and key do. */
export function allowedPatchActions(
  patch: PatchState,
  may: (action: Action) => boolean,
  runInFlight: { id: string; status: RunStatus } | undefined,
): PatchAction[] {
  return PATCH_ACTIONS.filter(
    (action) =>
      may(PATCH_ACTION_RIGHTS[action]) &&
      patchStateRefusal(patch, action) === null &&
      inFlightRefusal(action, runInFlight) === null,
  );
}

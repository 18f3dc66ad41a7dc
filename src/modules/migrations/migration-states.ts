// The one state machine of schema migrations (docs/contract.md §8). Every place that moves a migration or asks
// what it allows reads it here: the service (edit, apply, rollback and `allowed_actions`), the run
// handlers (the status a run works under and the one it leaves), and the sweep's hook for runs
// that died (migration-interrupted.ts).
//
//   draft ──apply──▶ applying ──▶ applied ──rollback──▶ rolling_back ──▶ rolled_back
//     ▲                 │                                   │
//     └─edit─ failed ◀──┘ (apply)            (rollback) ──▶ failed ──rollback──▶ rolling_back
//
// A migration whose apply failed may be edited and applied again. One whose rollback failed may
// only be rolled back again: its target holds (part of) the applied schema, so neither editing
// the forward SQL nor applying it again means anything; `failed_operation` remembers which one.
import type { LintWarning } from '../../engine/migration/index.ts';
import type { MigrationStatus } from '../../store/tables.ts';

export type MigrationOperation = 'apply' | 'rollback';
export type MigrationAction = 'edit' | MigrationOperation;
export const MIGRATION_ACTIONS = ['edit', 'apply', 'rollback'] as const satisfies readonly MigrationAction[];

/** What decides the next step: the status, and for `failed`, which operation failed. */
export interface MigrationState {
  status: MigrationStatus;
  failed_operation: MigrationOperation | null;
}

/** The states an action starts from. */
const STARTS: Record<MigrationAction, readonly MigrationState[]> = {
  edit: [
    { status: 'draft', failed_operation: null },
    { status: 'failed', failed_operation: 'apply' },
  ],
  apply: [
    { status: 'draft', failed_operation: null },
    { status: 'failed', failed_operation: 'apply' },
  ],
  rollback: [
    { status: 'applied', failed_operation: null },
    { status: 'failed', failed_operation: 'rollback' },
  ],
};

/** The status a run of the operation works under. */
export const RUNNING: Record<MigrationOperation, MigrationStatus> = {
  apply: 'applying',
  rollback: 'rolling_back',
};

/** The state a run that did everything leaves. */
export const DONE: Record<MigrationOperation, MigrationState> = {
  apply: { status: 'applied', failed_operation: null },
  rollback: { status: 'rolled_back', failed_operation: null },
};

export const failedBy = (operation: MigrationOperation): MigrationState => ({
  status: 'failed',
  failed_operation: operation,
});

/** The operation whose run the status belongs to, or null when no run is working on it. */
export function runningOperation(status: MigrationStatus): MigrationOperation | null {
  if (status === RUNNING.apply) return 'apply';
  if (status === RUNNING.rollback) return 'rollback';
  return null;
}

export function startsFrom(action: MigrationAction): readonly MigrationState[] {
  return STARTS[action];
}

export function allows(action: MigrationAction, state: MigrationState): boolean {
  return STARTS[action].some(
    (from) =>
      from.status === state.status &&
      (from.status !== 'failed' || from.failed_operation === (state.failed_operation ?? 'apply')),
  );
}

const VERB: Record<MigrationAction, string> = { edit: 'edited', apply: 'applied', rollback: 'rolled back' };

/** Why the action is refused in this state (409), naming the states it is allowed from. */
export function refusal(action: MigrationAction, state: MigrationState): string {
  const now =
    state.status === 'failed' && state.failed_operation !== null
      ? `failed (its ${state.failed_operation} failed)`
      : state.status;
  const from = STARTS[action]
    .map((s) =>
      s.status === 'failed'
        ? `failed after ${s.failed_operation === 'apply' ? 'an apply' : 'a rollback'}`
        : s.status,
    )
    .join(' or ');
  return `The migration is ${now}; only a migration that is ${from} can be ${VERB[action]}`;
}

/** What besides its state decides what a migration allows. */
export interface MigrationFacts extends MigrationState {
  /** A stored lint warning of severity `error`: apply waits for an edit. */
  lint_error: boolean;
  /** Whether a rollback was generated. */
  has_rollback: boolean;
}

/**
 * The actions the server would accept now from this caller (`may`: the same policy decision the
 * endpoints make). The target is not asked: apply may still answer 409 for a target that changed.
 */
export function allowedActions(
  migration: MigrationFacts,
  may: (action: MigrationAction) => boolean,
): MigrationAction[] {
  return MIGRATION_ACTIONS.filter((action) => {
    if (!allows(action, migration) || !may(action)) return false;
    if (action === 'apply') return !migration.lint_error;
    if (action === 'rollback') return migration.has_rollback;
    return true;
  });
}

/** The stored lint warnings of severity `error`: while one stands, the SQL must be edited before it is applied. */
export function lintErrors(warnings: unknown[]): LintWarning[] {
  return (warnings as LintWarning[]).filter((warning) => warning.severity === 'error');
}

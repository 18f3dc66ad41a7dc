// The kinds of run the modules registered (src/modules/module.ts): who may still start one, which
// connection it writes to, and what works it. Filled once by the composition root, after every
// module is built, and read by the executor and by the approval that releases a waiting run.
import type { EventType, RunKind } from '../../core/vocabulary.ts';
import type { Action } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { RunHandler } from './runs.executor.ts';

/** A kind of run a module works (API §7), and what its requester must still hold when it starts. */
export interface RunKindRegistration {
  kind: RunKind;
  handler: RunHandler;
  /** The action the requester needs, checked again when an approval releases the run and when it starts. */
  action: Action;
  /**
   * The connection the run writes to (for connection-scoped grants and protected connections);
   * undefined when its subject is gone.
   */
  connectionOf(db: Db, run: Run): Promise<string | undefined>;
  /** The domain events of its end (API §11.1); `run.failed` is emitted for every kind besides. */
  events?: { succeeded?: EventType; failed?: EventType };
  /**
   * Called once the sweep has failed a run of this kind as interrupted (its process died mid-run):
   * puts the subject back in a state a new run can start from, after finding out from the target
   * what the dead run did.
   */
  interrupted?: (run: Run) => Promise<void>;
}

export interface RunKinds {
  get(kind: RunKind): RunKindRegistration | undefined;
}

export function createRunKinds(): RunKinds & { add(registration: RunKindRegistration): void } {
  const byKind = new Map<RunKind, RunKindRegistration>();
  return {
    get: (kind) => byKind.get(kind),
    add(registration) {
      if (byKind.has(registration.kind))
        throw new Error(`Two modules register the run kind ${registration.kind}`);
      byKind.set(registration.kind, registration);
    },
  };
}

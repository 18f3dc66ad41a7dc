// The kinds of run the modules registered (src/modules/module.ts): who may still start one, which
// connections it touches and how, and what works it. Filled once by the composition root, after
// every module is built, and read by the one gated-run path (run-start.ts), the executor and the
// approval that releases a waiting run.
import type { Static, TSchema } from 'typebox';
import Value from 'typebox/value';
import type { EventType, RunKind } from '../../core/vocabulary.ts';
import type { Action } from '../../security/policy.ts';
import type { Run } from '../../store/tables.ts';
import type { RunHandler } from './run-handler.ts';

/**
 * The connections a run touches, read from its parameters. Every access rule applies to each of
 * them: the requester needs the kind's action on every one (so a just-in-time grant limited to one
 * connection opens no other), and a protected one among `writes` or `readsRows` needs an approval
 * by someone other than the requester.
 */
export interface RunConnections {
  /** Written to. The first one's environment picks the policy rule. */
  writes: string[];
  /** Rows are read out of it into another place (a bridge's source). */
  readsRows?: string[];
  /** Only its schema is read (a migration's source). */
  readsSchema?: string[];
}

/** A kind of run a module works (docs/contract.md §7), and what its requester must still hold when it starts. */
export interface RunKindRegistration {
  kind: RunKind;
  handler: RunHandler;
  /** The action the requester needs on every connection touched, checked when the run is asked for, released and started. */
  action: Action;
  /** What its runs' parameters hold: checked when a run is started, and when its handler reads them (`runParams`). */
  params: TSchema;
  /** The connections the run touches, from its parameters (written by the module that starts it). */
  touches(params: Run['params']): RunConnections;
  /** The domain events of its end (docs/contract.md §11.1); `run.failed` is emitted for every kind besides. */
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

/** Every connection id of `touched`, once each, written ones first. */
export function touchedConnectionIds(touched: RunConnections): string[] {
  return [...new Set([...touched.writes, ...(touched.readsRows ?? []), ...(touched.readsSchema ?? [])])];
}

/** The string a run's parameters hold under `key`, for `touches`; absent or not a string: none. */
export function connectionParam(params: Run['params'], key: string): string[] {
  const value = params[key];
  return typeof value === 'string' ? [value] : [];
}

/**
 * The parameters of `run` as `schema` says they are. A run whose parameters do not match was written
 * by a bug (the gated-run path checks them before it writes one): it fails, and says so in the log.
 */
export function runParams<S extends TSchema>(schema: S, run: Run): Static<S> {
  if (Value.Check(schema, run.params)) return run.params;
  const [first] = Value.Errors(schema, run.params);
  throw new Error(
    `Run ${run.id} (${run.kind}) has parameters its kind does not read: ${first?.instancePath} ${first?.message}`,
  );
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

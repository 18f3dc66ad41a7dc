// What a run kind's handler is: the work of one run, given a context to report progress (where a
// cancellation or a stopping process stops it) and to record its result so far, and the two ways
// it ends other than by returning: cancelled, or failed with what it did.
import type { Run, RunKind } from '../../store/tables.ts';

export interface RunContext {
  /** Records progress, and is where a requested cancellation stops the handler (it throws RunCancelled). */
  progress(done: number, total?: number | null): Promise<void>;
  /**
   * Records the result so far, durably, before the work goes on: after a kill -9 it is what the
   * kind's `interrupted` hook starts from. The run's end replaces it.
   */
  report(result: Record<string, unknown>): Promise<void>;
}

/** Does the work of one run and returns its result (the run's `result`). */
export type RunHandler = (run: Run, context: RunContext) => Promise<Record<string, unknown>>;

export type RunHandlers = Partial<Record<RunKind, RunHandler>>;

export class RunCancelled extends Error {
  /** What the run had done when it stopped, when its handler says (rethrown with it). */
  readonly result: Record<string, unknown> | undefined;
  constructor(result?: Record<string, unknown>) {
    super('cancelled');
    this.result = result;
  }
}

/** Thrown by a handler whose run failed with results to report (what was applied, what was not). */
export class RunFailed extends Error {
  readonly result: Record<string, unknown>;
  constructor(message: string, result: Record<string, unknown>) {
    super(message);
    this.result = result;
  }
}

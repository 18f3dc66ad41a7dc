// Which target connection the work in progress talks to, so that the statement spans the pg and
// mysql2 instrumentations make name it (`dbops.connection.id`): a trace then tells the target's
// statements from the store's, and one connection's from another's on the same server. Set by the
// connections service around the work it runs on a handle; read by ./tracing-sdk.ts.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface TargetInContext {
  /** The connection's id. */
  id: string;
  /** Its database and port, to tell its statements from the store's on the same server. */
  database: string;
  port: number;
}

const current = new AsyncLocalStorage<TargetInContext>();

/** Runs `work` as work on `target`'s database. */
export function withTargetContext<T>(target: TargetInContext, work: () => T): T {
  return current.run(target, work);
}

/** The target the work in progress talks to, if any. */
export function targetInContext(): TargetInContext | undefined {
  return current.getStore();
}

// Fields every log line carries while some work runs, whoever writes the line: a run's handler logs
// through the shared logger, and its lines still name the run. The composition root's pino reads
// them through `logMixin` (an AsyncLocalStorage lookup per line written, nothing otherwise).
import { AsyncLocalStorage } from 'node:async_hooks';

const fields = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs `work` with `extra` added to every log line written inside it. */
export function withLogFields<T>(extra: Record<string, unknown>, work: () => T): T {
  return fields.run({ ...fields.getStore(), ...extra }, work);
}

/** pino's `mixin`: the fields of the work in progress, if any. */
export function logMixin(): Record<string, unknown> {
  return fields.getStore() ?? {};
}

// Live progress without server-sent events: poll fast while something runs, then back off, and stop
// once nothing is left to watch.

const ACTIVE = new Set(['queued', 'running', 'awaiting_approval']);

export function isActiveRun(status: string): boolean {
  return ACTIVE.has(status);
}

/**
 * Milliseconds until the next poll after `polls` polls of an active run: 1 s, growing by half each
 * time up to 10 s; false when the run has ended (nothing changes any more).
 */
export function pollInterval(status: string | undefined, polls: number): number | false {
  if (status !== undefined && !isActiveRun(status)) return false;
  return Math.min(10_000, Math.round(1000 * 1.5 ** Math.max(0, polls - 5)));
}

/** Percent done, or undefined when the total is not known yet. */
export function percentDone(progress: { done: number; total: number | null }): number | undefined {
  if (progress.total === null || progress.total <= 0) return undefined;
  return Math.min(100, Math.round((progress.done / progress.total) * 100));
}

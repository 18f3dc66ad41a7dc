// Where a bridge run's time goes, and the run's steps that overlap. Each phase (introspection,
// checks, subset, each table's load, key validation, the snapshot) is timed and logged at debug
// level when the run ends, so a slow copy can be told apart from slow work around it (the bridge
// bench reads these lines). Steps that touch different sessions run together (`together`).

export interface PhaseClock {
  /** Times `work` as the phase `name` (phases running concurrently are each timed whole). */
  time<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** The phases so far, in milliseconds, in the order they started. */
  phases(): Record<string, number>;
}

export function createPhaseClock(): PhaseClock {
  const phases = new Map<string, number>();
  return {
    async time(name, work) {
      const started = performance.now();
      try {
        return await work();
      } finally {
        phases.set(name, (phases.get(name) ?? 0) + Math.round(performance.now() - started));
      }
    },
    phases: () => Object.fromEntries(phases),
  };
}

/**
 * Runs steps concurrently and waits for every one of them before answering, then throws the first
 * failure (in the order given): a step that failed early never leaves another one still running on
 * a session the caller is about to close, nor its result (a subset's key tables) unknown to it.
 */
export async function together<T extends readonly unknown[]>(
  ...steps: { [K in keyof T]: Promise<T[K]> }
): Promise<T> {
  await Promise.allSettled(steps);
  // Every step has settled: Promise.all now answers their values, or the first failure in the order given.
  return (await Promise.all(steps)) as T;
}

// Where a bridge run's time goes: each phase (introspection, checks, subset, each table's load, key
// validation, the snapshot) timed and logged at debug level when the run ends, so a slow copy can be
// told apart from slow work around it (the bridge bench reads these lines).

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

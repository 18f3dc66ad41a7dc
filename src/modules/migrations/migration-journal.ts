// The journal of a migration run on an engine whose DDL commits statement by statement (MySQL,
// MariaDB): before each statement is sent, the run's result is rewritten to say which statements
// ended (applied), which one starts now (in flight, with the target's session that runs it) and
// which never started (not applied). It is one small write per statement, awaited before the
// statement goes out, so after a kill -9 the report is exact but for the one statement in flight,
// which migration-interrupted.ts classifies by introspecting the target.
//
// The journal is the run's result in the contract's shape (MigrationRunResult, docs/contract.md §8), with
// `in_flight` besides; the run's end replaces it with the final report.

/** The statement a run was running, as the journal records it and the interrupted report tells it. */
export interface InFlight {
  index: number;
  sql: string;
  started_at: string;
  /** The target's server session running it (TargetHandle.endSession). */
  session: string;
  /** Set once settled: whether the target shows its effect (null: the target cannot tell). */
  applied?: boolean | null;
  evidence?: string;
}

export interface Journal {
  applied: number[];
  in_flight: InFlight | null;
  not_applied: number[];
}

/** The run's result while statement `index` runs: every statement before it ended. */
export function journalAt(
  statements: { sql: string }[],
  index: number,
  session: string,
  at: Date,
): Record<string, unknown> {
  const indexes = statements.map((_, i) => i);
  return {
    applied: indexes.slice(0, index),
    not_applied: indexes.slice(index + 1),
    failed: null,
    rolled_back: false,
    in_flight: {
      index,
      sql: statements[index]?.sql ?? '',
      started_at: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      session,
    },
  };
}

/** The journal a run left, or the empty one (nothing started) when it left none. */
export function readJournal(result: unknown, count: number): Journal {
  const value = (result ?? {}) as Partial<Journal>;
  if (!Array.isArray(value.applied) || !Array.isArray(value.not_applied))
    return { applied: [], in_flight: null, not_applied: [...Array(count).keys()] };
  return {
    applied: value.applied,
    in_flight: value.in_flight ?? null,
    not_applied: value.not_applied,
  };
}

/** The final report of an interrupted run, the statement in flight classified. */
export function settledReport(
  journal: Journal,
  verdict: { applied: boolean | null; evidence: string } | null,
): Record<string, unknown> {
  const { in_flight: inFlight } = journal;
  const applied = [...journal.applied];
  const notApplied = [...journal.not_applied];
  if (inFlight && verdict?.applied === true) applied.push(inFlight.index);
  if (inFlight && verdict?.applied === false) notApplied.unshift(inFlight.index);
  return {
    applied,
    not_applied: notApplied,
    failed: null,
    // What ran stays: nothing is rolled back on these engines (docs/contract.md §8).
    rolled_back: false,
    in_flight:
      inFlight && verdict ? { ...inFlight, applied: verdict.applied, evidence: verdict.evidence } : null,
  };
}

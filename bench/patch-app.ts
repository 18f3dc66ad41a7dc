// The service of the patch bench (bench/patch.ts): the test harness's app with its runs worked by the
// modules' run handlers, as a worker process has them, with two differences. The
// statement limit is an hour, not the default minute, so a large patch is measured, not cut off. And
// the target dialects are wrapped to time what the service asks of the target database: each
// introspection and each transaction, and each statement inside a transaction. The wrapper adds a
// pair of `performance.now()` calls per call and changes nothing the service sends.
import { TARGET_DEFAULTS } from '../src/config.ts';
import { dialects as realDialects, type TargetDialect, type TargetHandle } from '../src/dialects/index.ts';
import type { DialectName } from '../src/engine/schema/model.ts';
import { createTestApp, type TestApp } from '../test/support/app.ts';

/** What a patch run may take, statement by statement, in the bench. */
export const BENCH_STATEMENT_TIMEOUT_MS = 3_600_000;

export interface TracedQuery {
  sql: string;
  ms: number;
  /** Rows changed, inserted or returned. */
  rows: number;
}

/** One call of a handle: an introspection, a transaction (with its statements), or another call. */
export interface TraceStep {
  kind: 'introspect' | 'transaction' | 'tableStats' | 'apply';
  ms: number;
  /** For a transaction: committed or rolled back (or failed). */
  end?: 'commit' | 'rollback' | 'failed';
  queries: TracedQuery[];
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
}

function tracedHandle(handle: TargetHandle, trace: TraceStep[]): TargetHandle {
  const record = async <T>(kind: TraceStep['kind'], work: () => Promise<T>): Promise<T> => {
    const [value, ms] = await timed(work);
    trace.push({ kind, ms, queries: [] });
    return value;
  };
  return {
    get dialect() {
      return handle.dialect;
    },
    get sql() {
      return handle.sql;
    },
    get flavor() {
      return handle.flavor;
    },
    get serverVersion() {
      return handle.serverVersion;
    },
    introspect: (options) => record('introspect', () => handle.introspect(options)),
    tableStats: (tables) => record('tableStats', () => handle.tableStats(tables)),
    apply: (statements, options) => record('apply', () => handle.apply(statements, options)),
    endSession: (session, timeoutMs) => handle.endSession(session, timeoutMs),
    rowSession: () => handle.rowSession(),
    async transaction(work, options) {
      const step: TraceStep = { kind: 'transaction', ms: 0, queries: [] };
      const started = performance.now();
      try {
        const value = await handle.transaction(
          (tx) =>
            work({
              async query(sql, params) {
                const [result, ms] = await timed(() => tx.query(sql, params));
                // A SELECT's rows on MySQL are not `affectedRows`.
                step.queries.push({ sql, ms, rows: Math.max(result.affectedRows, result.rows.length) });
                return result;
              },
            }),
          options,
        );
        step.end = options.commit ? 'commit' : 'rollback';
        return value;
      } catch (error) {
        step.end = 'failed';
        throw error;
      } finally {
        step.ms = performance.now() - started;
        trace.push(step);
      }
    },
    close: () => handle.close(),
  };
}

/** The real dialects, each handle they open recording its calls into `trace`. */
export function tracedDialects(trace: TraceStep[]): Record<DialectName, TargetDialect> {
  const wrapped = {} as Record<DialectName, TargetDialect>;
  for (const [name, dialect] of Object.entries(realDialects) as [DialectName, TargetDialect][]) {
    wrapped[name] = {
      ...dialect,
      open: async (config) => tracedHandle(await dialect.open(config), trace),
    };
  }
  return wrapped;
}

/** The app (API and worker in this process), its target calls recorded into `trace`. */
export function createPatchBenchApp(trace: TraceStep[]): Promise<TestApp> {
  return createTestApp({
    targets: { ...TARGET_DEFAULTS, statementTimeoutMs: BENCH_STATEMENT_TIMEOUT_MS },
    dialects: tracedDialects(trace),
    work: true,
  });
}

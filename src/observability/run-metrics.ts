// A run's end, as the metrics count it: its kind and status, how long it worked, and the rows it
// changed or wrote, read from its result (each kind reports them under its own name).
import type { RunKind } from '../core/vocabulary.ts';
import { metrics } from './metrics.ts';

/**
 * Rows a succeeded run changed or wrote: a patch's affected rows, a rollback's restored rows, a
 * seed's, an anonymization's or a copy's rows written. Kinds that change schemas, not rows: 0.
 */
export function rowsWritten(result: Record<string, unknown> | undefined): number {
  if (!result) return 0;
  if (typeof result.total_affected_rows === 'number' && result.changed !== false)
    return result.total_affected_rows;
  if (typeof result.rows_total === 'number') return result.rows_total;
  if (Array.isArray(result.restored))
    return result.restored.reduce(
      (n: number, step: unknown) => n + Number((step as { rows?: unknown }).rows ?? 0),
      0,
    );
  return 0;
}

export function recordRunEnd(
  kind: RunKind,
  status: 'succeeded' | 'failed' | 'cancelled',
  workedSeconds: number,
  rows: number,
): void {
  metrics.runs.labels(kind, status).inc();
  metrics.runDuration.labels(kind).observe(workedSeconds);
  if (rows > 0) metrics.runRows.labels(kind).inc(rows);
}

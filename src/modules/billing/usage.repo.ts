// What `GET /billing/usage` reads besides the request counters: the records the work leaves (runs
// and their results), so these numbers need no counter of their own.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';

export interface Usage {
  period: string;
  api_requests: number;
  runs: Record<string, number>;
  rows: { patched: number; seeded: number; anonymized: number; copied: number };
  drift_checks: number;
}

/** The first instant of a `YYYY-MM` period and of the next one (UTC). */
export function periodBounds(period: string): [Date, Date] {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return [new Date(Date.UTC(year, month - 1, 1)), new Date(Date.UTC(year, month, 1))];
}

export async function readUsage(db: Db, orgId: string, period: string): Promise<Usage> {
  const [from, to] = periodBounds(period);
  const counters = await db
    .selectFrom('billing_usage')
    .select(['metric', 'count'])
    .where('org_id', '=', orgId)
    .where('period', '=', period)
    .execute();
  const runs = await db
    .selectFrom('runs')
    .select(['kind', sql<string>`count(*)`.as('n')])
    .where('org_id', '=', orgId)
    .where('started_at', '>=', from)
    .where('started_at', '<', to)
    .groupBy('kind')
    .execute();
  // Rows each kind of run reports in its result (patches: total_affected_rows; the others: rows_total).
  const rows = await db
    .selectFrom('runs')
    .select([
      'kind',
      sql<string>`coalesce(sum(coalesce((result->>'total_affected_rows')::bigint, (result->>'rows_total')::bigint, 0)), 0)`.as(
        'n',
      ),
    ])
    .where('org_id', '=', orgId)
    .where('status', '=', 'succeeded')
    .where('kind', 'in', ['patch_execute', 'seed_run', 'anonymize_run', 'bridge_run'])
    .where('finished_at', '>=', from)
    .where('finished_at', '<', to)
    .groupBy('kind')
    .execute();
  const rowsOf = (kind: string) => Number(rows.find((r) => r.kind === kind)?.n ?? 0);
  return {
    period,
    api_requests: Number(counters.find((c) => c.metric === 'api_requests')?.count ?? 0),
    runs: Object.fromEntries(runs.map((r) => [r.kind, Number(r.n)])),
    rows: {
      patched: rowsOf('patch_execute'),
      seeded: rowsOf('seed_run'),
      anonymized: rowsOf('anonymize_run'),
      copied: rowsOf('bridge_run'),
    },
    // Every drift check, manual or scheduled, is a run of its own (kind drift_check).
    drift_checks: Number(runs.find((r) => r.kind === 'drift_check')?.n ?? 0),
  };
}

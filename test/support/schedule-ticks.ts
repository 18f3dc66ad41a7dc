// What the scheduled passes leave in pg-boss's job table, read back per schedule, to tell whether
// each fired once per tick however many processes share the store. A tick of a schedule is the
// minute slot pg-boss files it under: the process whose cron pass finds the occurrence due sends a
// job to the internal `__pgboss__send-it` queue with `data.slot` (the minute, UTC) and the schedule's
// queue `data.name`; whichever process works that job then sends the pass's own job to the schedule's
// queue. So per schedule: the slots forwarded, and the pass jobs with their state and retries. Read
// in one statement, so both sides come from one snapshot of the store.
import pg from 'pg';

/** pg-boss's queue of cron occurrences on their way to their schedule's queue. */
const SEND_IT_QUEUE = '__pgboss__send-it';
/** How long an occurrence stays due (pg-boss's window), plus the forwarding's poll and a pass's run. */
const TICK_CLOSED_AFTER_MS = 75_000;

export interface PassJob {
  state: string;
  retryCount: number;
  createdOn: Date;
  output: Record<string, unknown> | null;
}

export interface ScheduleTicks {
  name: string;
  cron: string;
  /** Forwarded occurrences, as minute slots (ms since the epoch), with their forwarding jobs' states. */
  forwarded: { slot: number; state: string }[];
  /** The jobs of the schedule's queue, oldest first: one per pass. */
  passes: PassJob[];
}

export interface TicksSnapshot {
  /** The store's clock when read. */
  now: number;
  schedules: ScheduleTicks[];
  /** `drift_check` runs recorded so far (one per connection a pass checked or failed to check). */
  driftRuns: number;
}

/** A slot as pg-boss writes it: UTC wall time `YYYY-MM-DD HH:MM:SS`. */
const slotTime = (slot: string) => Date.parse(`${slot.replace(' ', 'T')}Z`);

export async function readScheduleTicks(storeUrl: string): Promise<TicksSnapshot> {
  const client = new pg.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      kind: 'schedule' | 'forwarded' | 'pass' | 'drift_runs';
      name: string | null;
      cron: string | null;
      slot: string | null;
      state: string | null;
      retry_count: number | null;
      created_on: Date | null;
      output: Record<string, unknown> | null;
      n: string | null;
      now: Date;
    }>(
      `with schedules as (select name, cron from pgboss.schedule)
       select 'schedule' as kind, name, cron, null as slot, null::text as state, null::int as retry_count,
              null::timestamptz as created_on, null::jsonb as output, null::bigint as n, now()
         from schedules
       union all
       select 'forwarded', data->>'name', null, data->>'slot', state::text, retry_count, created_on, null, null, now()
         from pgboss.job where name = $1 and data->>'name' in (select name from schedules)
       union all
       select 'pass', name, null, null, state::text, retry_count, created_on, output, null, now()
         from pgboss.job where name in (select name from schedules)
       union all
       select 'drift_runs', null, null, null, null, null, null, null, count(*), now()
         from runs where kind = 'drift_check'`,
      [SEND_IT_QUEUE],
    );
    const schedules = new Map<string, ScheduleTicks>();
    let driftRuns = 0;
    for (const row of rows) {
      if (row.kind === 'schedule' && row.name)
        schedules.set(row.name, { name: row.name, cron: row.cron ?? '', forwarded: [], passes: [] });
    }
    for (const row of rows) {
      const schedule = row.name ? schedules.get(row.name) : undefined;
      if (row.kind === 'drift_runs') driftRuns = Number(row.n);
      else if (row.kind === 'forwarded' && schedule && row.slot)
        schedule.forwarded.push({ slot: slotTime(row.slot), state: row.state ?? '' });
      else if (row.kind === 'pass' && schedule && row.created_on)
        schedule.passes.push({
          state: row.state ?? '',
          retryCount: row.retry_count ?? 0,
          createdOn: row.created_on,
          output: row.output,
        });
    }
    for (const schedule of schedules.values()) {
      schedule.forwarded.sort((x, y) => x.slot - y.slot);
      schedule.passes.sort((x, y) => x.createdOn.getTime() - y.createdOn.getTime());
    }
    return { now: rows[0]?.now.getTime() ?? Date.now(), schedules: [...schedules.values()], driftRuns };
  } finally {
    await client.end();
  }
}

/**
 * Whether there is enough to judge: every schedule forwarded at least `ticks` slots, nothing is on
 * its way (every forwarding and every pass has ended), and the first slot is closed (no process can
 * still find it due), so a duplicate of it would already be there.
 */
export function enoughTicks(snapshot: TicksSnapshot, ticks: number): boolean {
  if (snapshot.schedules.length === 0) return false;
  return snapshot.schedules.every((schedule) => {
    const slots = new Set(schedule.forwarded.map((f) => f.slot));
    const first = schedule.forwarded[0]?.slot;
    return (
      slots.size >= ticks &&
      first !== undefined &&
      snapshot.now >= first + TICK_CLOSED_AFTER_MS &&
      schedule.forwarded.every((f) => f.state === 'completed') &&
      schedule.passes.every((p) => p.state === 'completed' || p.state === 'failed')
    );
  });
}

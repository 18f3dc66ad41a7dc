// What the service's store connections are doing while a bench runs: pg_stat_activity sampled once
// a second, each connection of the given application name counted by what it waits on (a lock of
// some type, the client, I/O) or, when it waits on nothing, by its state. A request that waits for
// a lock holds its pool's connection meanwhile, so this tells a slow route that queues for the pool
// from one that is slow in the database.
import pg from 'pg';

export interface WaitSummary {
  /** Seconds sampled. */
  samples: number;
  /** Per wait (e.g. `Lock:advisory`, `active`, `idle`): mean and most connections at once. */
  waits: { what: string; mean: number; max: number }[];
}

export async function sampleWaits(
  url: string,
  applicationName: string,
  everyMs = 1_000,
): Promise<{ stop(): Promise<WaitSummary> }> {
  const client = new pg.Client({ connectionString: url, application_name: 'dbops-bench-sampler' });
  await client.connect();
  const totals = new Map<string, { sum: number; max: number }>();
  let samples = 0;
  let running: Promise<void> = Promise.resolve();
  const sample = async () => {
    const { rows } = await client.query<{ what: string; n: string }>(
      `select case when wait_event_type is null or wait_event_type = 'Client' then state
                   else wait_event_type || ':' || wait_event end as what,
              count(*) as n
         from pg_stat_activity
        where datname = current_database() and application_name = $1
        group by 1`,
      [applicationName],
    );
    samples += 1;
    for (const { what, n } of rows) {
      const total = totals.get(what) ?? { sum: 0, max: 0 };
      total.sum += Number(n);
      total.max = Math.max(total.max, Number(n));
      totals.set(what, total);
    }
  };
  const timer = setInterval(() => {
    running = running.then(sample).catch(() => undefined);
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await client.end();
      const waits = [...totals]
        .map(([what, { sum, max }]) => ({ what, mean: samples > 0 ? sum / samples : 0, max }))
        .sort((x, y) => y.mean - x.mean);
      return { samples, waits };
    },
  };
}

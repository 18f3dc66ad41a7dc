// The bridge bench (`npm run bench`, or BENCH_ONLY=bridge; also `node bench/bridge.ts`): copies of
// 1,000,000 rows of about 150 bytes in three FK-linked tables (customers 1 : orders 3 : order_lines 6)
// through the real service (a bridge_run worked in this process), side by side with the engines'
// own clients piped into each other on the same machine:
//   - PG→PG, replace into a target that has the tables and their foreign keys: ours vs
//     `psql -c "COPY t TO STDOUT" | psql -c "COPY t FROM STDIN"` per table, the pipe's time including
//     the same truncation, and dropping and re-adding (validating) the target's foreign keys.
//   - MariaDB→PG with create_tables into an empty database: ours vs `mariadb --quick -B -N -e
//     "SELECT …" | psql -c "COPY … FROM STDIN"` per table into tables created with their primary keys,
//     the foreign keys added after; and pgloader (the Debian package: `apt-get install pgloader`;
//     reported as not measured when it is missing, never installed by this bench) into an empty
//     database, its peak memory read by /usr/bin/time.
//   - A 10 % subset of the PG data (subset on customers, percent 10): ours vs copying the subset's
//     rows alone with the pipe (the same rows, from a database that holds only them).
//   - Memory at the size the target names: one MariaDB→PG (create_tables) and one PG→PG copy of
//     BENCH_BRIDGE_RSS_ROWS rows (default 5,000,000).
// Ours is the run's own time (started_at → finished_at in the store, as the patch bench times runs;
// POST → end, which adds the queue's pick-up, is reported beside); its memory is the peak RSS of
// this process sampled every 50 ms during the run, above its RSS just before; where its time went
// (the run's phases, logged at debug level by bridge-phases.ts) is reported for the median run of
// each copy, so a miss can be told to be the load or the work around it. Targets:
// PG→PG ≥ 0.95× the pipe; MariaDB→PG ≥ 2× pgloader and below its memory (without pgloader: not
// measured, which counts as missed); subset under 2× the time of its rows alone; RSS growth under
// 150 MB on the 5M-row copies. A missed target is reported as missed and the exit code is 1.
//
// Environment: BENCH_BRIDGE_ROWS (default 1000000), BENCH_BRIDGE_REPEATS (default 3),
// BENCH_BRIDGE_RSS_ROWS (default 5000000), TEST_PG_URL, TEST_MYSQL_URL.
import { execFile, spawn } from 'node:child_process';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Client, TestApp } from '../test/support/app.ts';
import { connectionBody } from '../test/support/connections.ts';
import { createTestPgDatabase } from '../test/support/databases.ts';
import { createTestMysqlDatabase } from '../test/support/mysql.ts';
import { createTestAppWithWorker } from '../test/support/worker-runs.ts';
import { mysqlData, PG_DROP_KEYS, PG_KEYS, PG_TABLES, pgData, TABLES } from './bridge-data.ts';
import { positiveNumber } from './env.ts';
import { failureReport, publishReport } from './results.ts';

const API = '/api/v1';
const log = (message: string) => console.error(`[bridge] ${message}`);
const run = promisify(execFile);

function psqlArgs(url: string, sql: string): string {
  return `psql -X -q -v ON_ERROR_STOP=1 -d '${url}' -c "${sql.replace(/"/g, '\\"')}"`;
}

async function shell(script: string): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script}\n${stderr}`))));
  });
  return performance.now() - started;
}

async function psql(url: string, sql: string): Promise<void> {
  await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { maxBuffer: 1 << 26 });
}

async function mariadb(url: string, sql: string): Promise<void> {
  const u = new URL(url);
  await run(
    'mariadb',
    ['-h', u.hostname, '-P', u.port || '3306', '-u', u.username, u.pathname.slice(1), '-e', sql],
    {
      maxBuffer: 1 << 26,
    },
  );
}

/** pgloader from MariaDB into an empty PostgreSQL database: its time and peak RSS (/usr/bin/time). */
async function pgloader(from: string, into: string): Promise<{ ms: number; rssMb: number }> {
  const report = `${os.tmpdir()}/bridge-bench-pgloader-${process.pid}.time`;
  const ms = await shell(`/usr/bin/time -o ${report} -f '%M' pgloader --on-error-stop '${from}' '${into}'`);
  const { stdout } = await run('cat', [report]);
  return { ms, rssMb: Number(stdout.trim().split('\n').at(-1)) / 1024 };
}

const hasCommand = (name: string) =>
  run('which', [name]).then(
    () => true,
    () => false,
  );

interface Measured {
  /** The run's own started_at → finished_at (the store keeps milliseconds). */
  ms: number;
  /** POST → the run seen finished: adds the queue's pick-up and the polling. */
  wallMs: number;
  rssMb: number;
  rows: number;
  /** The run's own phases (its debug line 'bridge run phases', bridge-phases.ts), in ms. */
  phases: Record<string, number>;
}

/** The phases a run logged at debug level, found by its id among the app's log lines. */
function phasesOf(t: TestApp, runId: string): Record<string, number> {
  for (const line of t.logs) {
    if (!line.includes('bridge run phases') || !line.includes(runId)) continue;
    const entry = JSON.parse(line) as { run_id?: string; phases?: Record<string, number> };
    if (entry.run_id === runId && entry.phases) return entry.phases;
  }
  return {};
}

/** A run's phases on one line, longest first, e.g. `load:public.orders 900, snapshot 40`. */
const phaseLine = (m: Measured) =>
  Object.entries(m.phases)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${fmt(ms)}`)
    .join(', ');

async function bridgeRun(
  t: TestApp,
  owner: Client,
  projectId: string,
  body: Record<string, unknown>,
): Promise<Measured> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  try {
    const post = await owner.post(`${API}/projects/${projectId}/bridge/run`, body);
    if (post.status !== 202)
      throw new Error(`bridge run refused: ${post.status} ${JSON.stringify(post.body)}`);
    for (;;) {
      const got = await owner.get(`${API}/runs/${post.body.id}`);
      if (got.body.status === 'succeeded') {
        const record = await t.store.db
          .selectFrom('runs')
          .select(['started_at', 'finished_at'])
          .where('id', '=', post.body.id)
          .executeTakeFirstOrThrow();
        const measured: Measured = {
          ms: record.finished_at!.getTime() - record.started_at!.getTime(),
          wallMs: performance.now() - started,
          rssMb: (peak - before) / 2 ** 20,
          rows: got.body.result.rows_total,
          phases: phasesOf(t, post.body.id),
        };
        log(`run ${fmt(measured.ms)} ms: ${phaseLine(measured)}`);
        return measured;
      }
      if (got.body.status === 'failed' || got.body.status === 'cancelled')
        throw new Error(`bridge run ${got.body.status}: ${got.body.error}`);
      await sleep(50);
    }
  } finally {
    clearInterval(sampler);
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};
/** The run whose time is the median: its phases are the ones reported. */
const medianRun = (runs: Measured[]) =>
  [...runs].sort((a, b) => a.ms - b.ms)[Math.floor((runs.length - 1) / 2)]!;

export async function runBridgeBench(): Promise<boolean> {
  const rows = Math.round(positiveNumber('BENCH_BRIDGE_ROWS', 1_000_000));
  const repeats = Math.round(positiveNumber('BENCH_BRIDGE_REPEATS', 3));
  const dbs: { drop(): Promise<void> }[] = [];
  let t: TestApp | undefined;
  const report: string[] = [];
  let ok = true;
  try {
    const pgSource = (await createTestPgDatabase())!;
    const pgTarget = (await createTestPgDatabase())!;
    const pgEmpty = (await createTestPgDatabase())!;
    const pgPipe = (await createTestPgDatabase())!;
    const mySource = (await createTestMysqlDatabase())!;
    dbs.push(pgSource, pgTarget, pgEmpty, pgPipe, mySource);
    log(`generating ${fmt(rows)} rows on PostgreSQL and MariaDB`);
    await psql(pgSource.url, PG_TABLES + PG_KEYS + pgData(rows));
    await psql(pgTarget.url, PG_TABLES + PG_KEYS);
    await mariadb(mySource.url, mysqlData(rows));

    t = await createTestAppWithWorker({ logLevel: 'debug' });
    const { owner } = await t.createOrg('Bench');
    const projectId = (await owner.post(`${API}/projects`, { name: 'Bridge bench' })).body.id as string;
    const conn = async (url: string, name: string) =>
      (await owner.post(`${API}/connections`, connectionBody(projectId, url, { name }))).body.id as string;
    const ids = {
      pgSource: await conn(pgSource.url, 'pg source'),
      pgTarget: await conn(pgTarget.url, 'pg target'),
      pgEmpty: await conn(pgEmpty.url, 'pg empty'),
      mySource: await conn(mySource.url, 'mariadb source'),
    };

    // PG→PG
    const pipePg = async () =>
      shell(
        [
          psqlArgs(pgTarget.url, `${PG_DROP_KEYS} truncate customers, orders, order_lines;`),
          ...TABLES.map(
            (table) =>
              `${psqlArgs(pgSource.url, `COPY ${table} TO STDOUT`)} | ${psqlArgs(pgTarget.url, `COPY ${table} FROM STDIN`)}`,
          ),
          psqlArgs(pgTarget.url, PG_KEYS),
        ].join(' && '),
      );
    const oursPg: Measured[] = [];
    const pipePgMs: number[] = [];
    for (let i = 0; i < repeats; i++) {
      log(`PG→PG repeat ${i + 1}`);
      pipePgMs.push(await pipePg());
      oursPg.push(
        await bridgeRun(t, owner, projectId, {
          source_connection_id: ids.pgSource,
          target_connection_id: ids.pgTarget,
        }),
      );
    }

    // MariaDB→PG with create_tables
    const myUrl = new URL(mySource.url);
    const mariadbPipe = (table: string) =>
      `mariadb --quick -B -N -h ${myUrl.hostname} -P ${myUrl.port || 3306} -u ${myUrl.username} ${myUrl.pathname.slice(1)} -e "select * from ${table}" | ${psqlArgs(pgPipe.url, `COPY ${table} FROM STDIN WITH (NULL 'NULL')`)}`;
    const pipeMy = async () => {
      await psql(pgPipe.url, 'drop table if exists order_lines, orders, customers');
      return shell(
        [
          psqlArgs(pgPipe.url, PG_TABLES.replace('created_at timestamptz', 'created_at timestamp')),
          ...TABLES.map(mariadbPipe),
          psqlArgs(pgPipe.url, PG_KEYS),
        ].join(' && '),
      );
    };
    const oursMy: Measured[] = [];
    const pipeMyMs: number[] = [];
    const pgloaderRuns: { ms: number; rssMb: number }[] = [];
    const withPgloader = (await hasCommand('pgloader')) && (await hasCommand('time'));
    for (let i = 0; i < repeats; i++) {
      log(`MariaDB→PG repeat ${i + 1}`);
      pipeMyMs.push(await pipeMy());
      if (withPgloader) {
        // pgloader puts the tables in a schema named after the MySQL database: a new database each time.
        const into = (await createTestPgDatabase())!;
        try {
          pgloaderRuns.push(await pgloader(mySource.url, into.url));
        } finally {
          await into.drop();
        }
      }
      await psql(pgEmpty.url, 'drop table if exists order_lines, orders, customers');
      oursMy.push(
        await bridgeRun(t, owner, projectId, {
          source_connection_id: ids.mySource,
          target_connection_id: ids.pgEmpty,
          create_tables: true,
        }),
      );
    }

    // 10 % subset
    const oursSubset: Measured[] = [];
    const subsetRowsMs: number[] = [];
    for (let i = 0; i < repeats; i++) {
      log(`subset repeat ${i + 1}`);
      const m = await bridgeRun(t, owner, projectId, {
        source_connection_id: ids.pgSource,
        target_connection_id: ids.pgTarget,
        subset: { table: 'customers', percent: 10 },
      });
      oursSubset.push(m);
      // The subset's rows alone: the run left exactly them in the target; copying them from there
      // with the pipe is what moving those rows costs, without finding them.
      await psql(pgPipe.url, 'drop table if exists order_lines, orders, customers');
      await psql(pgPipe.url, PG_TABLES);
      const rowsAlone = await shell(
        TABLES.map(
          (table) =>
            `${psqlArgs(pgTarget.url, `COPY ${table} TO STDOUT`)} | ${psqlArgs(pgPipe.url, `COPY ${table} FROM STDIN`)}`,
        ).join(' && '),
      );
      subsetRowsMs.push(rowsAlone);
    }

    // Memory at the target's size: a copy of BENCH_BRIDGE_RSS_ROWS rows each way into PostgreSQL.
    const rssRows = Math.round(positiveNumber('BENCH_BRIDGE_RSS_ROWS', 5_000_000));
    log(`memory: generating ${fmt(rssRows)} rows on PostgreSQL and MariaDB`);
    const big = {
      pg: (await createTestPgDatabase())!,
      pgTarget: (await createTestPgDatabase())!,
      pgEmpty: (await createTestPgDatabase())!,
      my: (await createTestMysqlDatabase())!,
    };
    dbs.push(...Object.values(big));
    await psql(big.pg.url, PG_TABLES + PG_KEYS + pgData(rssRows));
    await psql(big.pgTarget.url, PG_TABLES + PG_KEYS);
    await mariadb(big.my.url, mysqlData(rssRows));
    log(`memory: MariaDB→PG, ${fmt(rssRows)} rows`);
    const bigMy = await bridgeRun(t, owner, projectId, {
      source_connection_id: await conn(big.my.url, 'big mariadb'),
      target_connection_id: await conn(big.pgEmpty.url, 'big pg empty'),
      create_tables: true,
    });
    log(`memory: PG→PG, ${fmt(rssRows)} rows`);
    const bigPg = await bridgeRun(t, owner, projectId, {
      source_connection_id: await conn(big.pg.url, 'big pg'),
      target_connection_id: await conn(big.pgTarget.url, 'big pg target'),
    });

    const rps = (r: number, ms: number) => (r / ms) * 1000;
    const pgRatio = median(pipePgMs) / median(oursPg.map((m) => m.ms));
    const myRatio = median(pipeMyMs) / median(oursMy.map((m) => m.ms));
    const subsetRatio = median(oursSubset.map((m) => m.ms)) / median(subsetRowsMs);
    const peakRss = Math.max(bigMy.rssMb, bigPg.rssMb);
    const pgOk = pgRatio >= 0.95;
    const subsetOk = Number.isFinite(subsetRatio) && subsetRatio < 2;
    const rssOk = peakRss < 150;
    const pgloaderMs = pgloaderRuns.length > 0 ? median(pgloaderRuns.map((r) => r.ms)) : Number.NaN;
    const pgloaderRss = Math.max(...pgloaderRuns.map((r) => r.rssMb));
    const pgloaderRatio = pgloaderMs / median(oursMy.map((m) => m.ms));
    const pgloaderOk = pgloaderRatio >= 2 && Math.max(...oursMy.map((m) => m.rssMb)) < pgloaderRss;
    ok = pgOk && subsetOk && rssOk && pgloaderOk;
    const [load1, load5, load15] = os.loadavg();
    report.push(
      '# Bridge: copies through the row pipeline vs the engines’ own clients piped',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Node ${process.version} on ${os.platform()} ${os.release()}; ${os.cpus().length} cores; databases on the same machine`,
      `- Data: ${fmt(rows)} rows of ~150 bytes in 3 FK-linked tables (customers 10 %, orders 30 %, order_lines 60 %); ${repeats} repeats, medians${repeats % 2 === 0 ? ' (of an even count, the lower middle one)' : ''}`,
      `- Load average after: ${load1!.toFixed(2)} / ${load5!.toFixed(2)} / ${load15!.toFixed(2)} (other agents share the 2 cores)`,
      '',
      '| Copy | Ours | Ours rows/s | Reference | Reference time | Reference rows/s | Ours speed / reference | Peak RSS growth (ours) | Target | Result |',
      '| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- |',
      `| PG→PG, replace, FKs on target | ${fmt(median(oursPg.map((m) => m.ms)))} ms | ${fmt(rps(rows, median(oursPg.map((m) => m.ms))))} | psql COPY \\| psql COPY, FKs dropped + re-added | ${fmt(median(pipePgMs))} ms | ${fmt(rps(rows, median(pipePgMs)))} | ${pgRatio.toFixed(2)}× | ${fmt(Math.max(...oursPg.map((m) => m.rssMb)))} MB | ≥ 0.95× | ${pgOk ? 'ok' : 'MISSED'} |`,
      `| MariaDB→PG, create_tables | ${fmt(median(oursMy.map((m) => m.ms)))} ms | ${fmt(rps(rows, median(oursMy.map((m) => m.ms))))} | mariadb --quick \\| psql COPY, FKs added after | ${fmt(median(pipeMyMs))} ms | ${fmt(rps(rows, median(pipeMyMs)))} | ${myRatio.toFixed(2)}× | ${fmt(Math.max(...oursMy.map((m) => m.rssMb)))} MB | (the pipe is a reference, not a target) | — |`,
      withPgloader
        ? `| MariaDB→PG, create_tables | ${fmt(median(oursMy.map((m) => m.ms)))} ms | ${fmt(rps(rows, median(oursMy.map((m) => m.ms))))} | pgloader (Debian package), into an empty database; peak RSS ${fmt(pgloaderRss)} MB | ${fmt(pgloaderMs)} ms | ${fmt(rps(rows, pgloaderMs))} | ${pgloaderRatio.toFixed(2)}× | ${fmt(Math.max(...oursMy.map((m) => m.rssMb)))} MB | ≥ 2× pgloader, below its memory | ${pgloaderOk ? 'ok' : 'MISSED'} |`
        : '| MariaDB→PG, create_tables | | | pgloader | | | | | ≥ 2× pgloader | NOT MEASURED: pgloader is not installed (`apt-get install pgloader`; the bench does not install it) |',
      `| 10 % subset (customers, percent 10) | ${fmt(median(oursSubset.map((m) => m.ms)))} ms | ${fmt(rps(median(oursSubset.map((m) => m.rows)), median(oursSubset.map((m) => m.ms))))} | the subset's ${fmt(median(oursSubset.map((m) => m.rows)))} rows alone, psql COPY \\| psql COPY | ${Number.isFinite(median(subsetRowsMs)) ? `${fmt(median(subsetRowsMs))} ms` : 'failed'} | — | time ${Number.isFinite(subsetRatio) ? `${subsetRatio.toFixed(2)}×` : '—'} | ${fmt(Math.max(...oursSubset.map((m) => m.rssMb)))} MB | time < 2× | ${subsetOk ? 'ok' : 'MISSED'} |`,
      '',
      `- Memory: peak RSS growth of the service process over its RSS before the copy, ${fmt(rssRows)} rows: MariaDB→PG (create_tables) ${fmt(bigMy.rssMb)} MB in ${fmt(bigMy.ms)} ms (${fmt(rps(bigMy.rows, bigMy.ms))} rows/s), PG→PG ${fmt(bigPg.rssMb)} MB in ${fmt(bigPg.ms)} ms (${fmt(rps(bigPg.rows, bigPg.ms))} rows/s); target < 150 MB: ${rssOk ? 'ok' : 'MISSED'}. pgloader's own peak RSS (whole process, not growth): ${withPgloader ? `${fmt(pgloaderRss)} MB` : 'not measured'}.`,
      `- Where the median run's time went (ms, longest first; phases that overlap are each timed whole): PG→PG ${phaseLine(medianRun(oursPg))}; MariaDB→PG ${phaseLine(medianRun(oursMy))}; subset ${phaseLine(medianRun(oursSubset))}.`,
      `- Ours is the run's own time, started_at → finished_at (introspection of both sides, planning, the load, key validation and the snapshot included); POST → run seen finished, which adds the queue's pick-up and the 50 ms polling: PG→PG ${fmt(median(oursPg.map((m) => m.wallMs)))} ms, MariaDB→PG ${fmt(median(oursMy.map((m) => m.wallMs)))} ms, subset ${fmt(median(oursSubset.map((m) => m.wallMs)))} ms.`,
    );
  } catch (error) {
    ok = false;
    report.push(...failureReport('Bridge bench', error, log));
  } finally {
    await t?.close();
    for (const db of dbs) await db.drop().catch(() => {});
  }
  await publishReport('bridge', report);
  return ok;
}

if (import.meta.filename === process.argv[1]) process.exitCode = (await runBridgeBench()) ? 0 : 1;

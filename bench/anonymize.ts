// The anonymization bench (`npm run bench`, or BENCH_ONLY=anonymize; also `node bench/anonymize.ts`):
// one table of 1,000,000 rows (id, email, name, phone: about 100 bytes a row) and three rules,
// `fake` e-mail (deterministic), `mask` and `hash`, run through the real service (runs worked in this
// process), side by side with the physical limits measured in the same run:
//   - In place (`anonymize_run`): ours vs a single server-side
//     `UPDATE t SET email = md5(email), name = md5(name), phone = md5(phone)` by psql on the same
//     rows. Target: ours ≤ 2× its time.
//   - Bridge PG→PG with the config (`anonymize_config_id`): ours vs the plain
//     `psql -c "COPY t TO STDOUT" | psql -c "COPY t FROM STDIN"` pipe into the same emptied table.
//     Target: ours ≥ 0.4× its speed.
// Ours is the run's own time (started_at → finished_at in the store, as the bridge bench times
// runs). Before each in-place measure the table is refilled with the clear rows by the pipe.
// A missed target is reported as missed and the exit code is 1.
//
// Environment: BENCH_ANON_ROWS (default 1000000), BENCH_ANON_REPEATS (default 5: runs on this machine vary by ±20 %), TEST_PG_URL.
import { execFile, spawn } from 'node:child_process';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Client, TestApp } from '../test/support/app.ts';
import { connectionBody } from '../test/support/connections.ts';
import { createTestPgDatabase } from '../test/support/databases.ts';
import { createTestAppWithWorker } from '../test/support/worker-runs.ts';
import { type CpuDelta, cpuBetween, cpuSnapshot } from './cpu-time.ts';
import { positiveNumber } from './env.ts';
import { failureReport, publishReport } from './results.ts';

const API = '/api/v1';
const log = (message: string) => console.error(`[anonymize] ${message}`);
const exec = promisify(execFile);

const TABLE = 'create table people (id bigint primary key, email text not null, name text, phone text);';
const RULES = [
  { table: 'people', column: 'email', transformer: 'fake', options: { kind: 'email' } },
  { table: 'people', column: 'name', transformer: 'mask' },
  { table: 'people', column: 'phone', transformer: 'hash', options: { length: 32 } },
];
const MD5_UPDATE = 'UPDATE people SET email = md5(email), name = md5(name), phone = md5(phone)';

const data = (rows: number) => `
  insert into people select i, 'person.' || i || '@mail' || (i % 97) || '.example.org',
    'Firstname' || (i % 1000) || ' Lastname' || (i % 5000), '+49 151 ' || (1000000 + i % 9000000)
  from generate_series(1, ${rows}) i;
  analyze people;`;

async function psql(url: string, sql: string): Promise<number> {
  const started = performance.now();
  await exec('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { maxBuffer: 1 << 26 });
  return performance.now() - started;
}

const psqlCommand = (url: string, sql: string) => `psql -X -q -v ON_ERROR_STOP=1 -d '${url}' -c "${sql}"`;

/** `psql COPY TO | psql COPY FROM` of the table, into the emptied table; its time. */
async function pipe(from: string, into: string): Promise<number> {
  await psql(into, 'truncate people');
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const script = `${psqlCommand(from, 'COPY people TO STDOUT')} | ${psqlCommand(into, 'COPY people FROM STDIN')}`;
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(stderr))));
  });
  return performance.now() - started;
}

/** Starts a run by POST and waits for its end; its own time (started_at → finished_at). */
async function timedRun(t: TestApp, owner: Client, path: string, body?: object): Promise<number> {
  const post = await owner.post(`${API}${path}`, body);
  if (post.status !== 202) throw new Error(`run refused: ${post.status} ${JSON.stringify(post.body)}`);
  for (;;) {
    const got = await owner.get(`${API}/runs/${post.body.id}`);
    if (got.body.status === 'succeeded') {
      const record = await t.store.db
        .selectFrom('runs')
        .select(['started_at', 'finished_at'])
        .where('id', '=', post.body.id)
        .executeTakeFirstOrThrow();
      return record.finished_at!.getTime() - record.started_at!.getTime();
    }
    if (got.body.status === 'failed' || got.body.status === 'cancelled')
      throw new Error(`run ${got.body.status}: ${got.body.error}`);
    // The run's time is the store's (started_at → finished_at), so a coarse poll loses nothing; each
    // poll is a request this process serves beside the run, on cores the run is saturating.
    await sleep(250);
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** The bridge's CPU beside the pipe's, mean of the repeats: what saturates the cores. */
function cpuReport(pipe: (CpuDelta | null)[], bridge: (CpuDelta | null)[], cores: number): string[] {
  const measured = (list: (CpuDelta | null)[]) => list.filter((d): d is CpuDelta => d !== null);
  const [p, b] = [measured(pipe), measured(bridge)];
  if (p.length === 0 || b.length === 0) return [];
  const mean = (list: CpuDelta[], key: keyof CpuDelta) =>
    list.reduce((sum, d) => sum + d[key], 0) / list.length;
  const total = (list: CpuDelta[]) => mean(list, 'process') + mean(list, 'children') + mean(list, 'servers');
  return [
    '',
    `## Where the CPU goes: the bridge with the config vs the pipe (seconds per copy, mean of ${b.length}; ${cores} cores)`,
    '',
    "| Copy | Run's thread (and the service beside it) | V8 helper threads (garbage collector) | Transform workers | psql | Database server | All |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| Bridge with the config | ${seconds(mean(b, 'main'))} | ${seconds(mean(b, 'v8Helpers'))} | ${seconds(mean(b, 'ended') + mean(b, 'otherLive'))} | – | ${seconds(mean(b, 'servers'))} | ${seconds(total(b))} |`,
    `| psql COPY \\| psql COPY | – | – | – | ${seconds(mean(p, 'children'))} | ${seconds(mean(p, 'servers'))} | ${seconds(total(p))} |`,
    '',
    "- User + system time from /proc: this process's threads by kind (the transform workers are the threads that ended during the run), the processes it waited for, and the PostgreSQL server's processes (the store's included: the service's own bookkeeping). When all of it is near cores × wall time, the copy is CPU-bound and only less work makes it faster.",
  ];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function runAnonymizeBench(): Promise<boolean> {
  const rows = Math.round(positiveNumber('BENCH_ANON_ROWS', 1_000_000));
  const repeats = Math.round(positiveNumber('BENCH_ANON_REPEATS', 5));
  const dbs: { drop(): Promise<void> }[] = [];
  let t: TestApp | undefined;
  const report: string[] = [];
  let ok = false;
  try {
    const source = (await createTestPgDatabase())!;
    const target = (await createTestPgDatabase())!;
    dbs.push(source, target);
    log(`generating ${fmt(rows)} rows`);
    await psql(source.url, TABLE + data(rows));
    await psql(target.url, TABLE);

    t = await createTestAppWithWorker();
    const { owner } = await t.createOrg('Anonymize bench');
    const projectId = (await owner.post(`${API}/projects`, { name: 'Anonymize bench' })).body.id as string;
    const conn = async (url: string, name: string) =>
      (await owner.post(`${API}/connections`, connectionBody(projectId, url, { name }))).body.id as string;
    const ids = { source: await conn(source.url, 'source'), target: await conn(target.url, 'target') };
    const config = async (connectionId: string, name: string) => {
      const created = await owner.post(`${API}/anonymize/configs`, {
        project_id: projectId,
        connection_id: connectionId,
        name,
        rules: RULES,
      });
      if (created.status !== 201) throw new Error(`config refused: ${JSON.stringify(created.body)}`);
      return created.body.id as string;
    };
    const onSource = await config(ids.source, 'bench source');
    const onTarget = await config(ids.target, 'bench target');

    const pipeMs: number[] = [];
    const bridgeMs: number[] = [];
    const updateMs: number[] = [];
    const inPlaceMs: number[] = [];
    const pipeCpu: (CpuDelta | null)[] = [];
    const bridgeCpu: (CpuDelta | null)[] = [];
    for (let i = 0; i < repeats; i++) {
      log(`bridge repeat ${i + 1}`);
      let before = cpuSnapshot();
      pipeMs.push(await pipe(source.url, target.url));
      pipeCpu.push(cpuBetween(before, cpuSnapshot()));
      before = cpuSnapshot();
      bridgeMs.push(
        await timedRun(t, owner, `/projects/${projectId}/bridge/run`, {
          source_connection_id: ids.source,
          target_connection_id: ids.target,
          anonymize_config_id: onSource,
        }),
      );
      bridgeCpu.push(cpuBetween(before, cpuSnapshot()));
      log(`in-place repeat ${i + 1}`);
      await pipe(source.url, target.url);
      await psql(target.url, 'vacuum analyze people');
      updateMs.push(await psql(target.url, MD5_UPDATE));
      await pipe(source.url, target.url);
      await psql(target.url, 'vacuum analyze people');
      inPlaceMs.push(await timedRun(t, owner, `/anonymize/configs/${onTarget}/run`));
    }

    const bridgeRatio = median(pipeMs) / median(bridgeMs);
    const inPlaceRatio = median(inPlaceMs) / median(updateMs);
    const bridgeOk = bridgeRatio >= 0.4;
    const inPlaceOk = inPlaceRatio <= 2;
    ok = bridgeOk && inPlaceOk;
    const rps = (ms: number) => fmt((rows / ms) * 1000);
    const [load1, load5, load15] = os.loadavg();
    report.push(
      '# Anonymization: in place and on the bridge vs the physical limits',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Node ${process.version} on ${os.platform()} ${os.release()}; ${os.cpus().length} cores; PostgreSQL on the same machine`,
      `- Data: ${fmt(rows)} rows (id, email, name, phone; ~100 bytes); rules: fake email (deterministic), mask, hash (32); ${repeats} repeats, medians`,
      `- Load average after: ${load1!.toFixed(2)} / ${load5!.toFixed(2)} / ${load15!.toFixed(2)} (other agents share the 2 cores)`,
      '',
      '| Operation | Ours | Ours rows/s | Reference | Reference time | Reference rows/s | Ratio | Target | Result |',
      '| --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |',
      `| In place (\`anonymize_run\`) | ${fmt(median(inPlaceMs))} ms | ${rps(median(inPlaceMs))} | \`UPDATE … SET email = md5(email), name = md5(name), phone = md5(phone)\` | ${fmt(median(updateMs))} ms | ${rps(median(updateMs))} | time ${inPlaceRatio.toFixed(2)}× | time ≤ 2× | ${inPlaceOk ? 'ok' : 'MISSED'} |`,
      `| Bridge PG→PG with the config | ${fmt(median(bridgeMs))} ms | ${rps(median(bridgeMs))} | psql COPY \\| psql COPY (clear) | ${fmt(median(pipeMs))} ms | ${rps(median(pipeMs))} | speed ${bridgeRatio.toFixed(2)}× | speed ≥ 0.4× | ${bridgeOk ? 'ok' : 'MISSED'} |`,
      '',
      `- Every measure: in place ${inPlaceMs.map(fmt).join(', ')} ms vs UPDATE ${updateMs.map(fmt).join(', ')} ms; bridge ${bridgeMs.map(fmt).join(', ')} ms vs pipe ${pipeMs.map(fmt).join(', ')} ms.`,
      "- Ours is the run's own time, started_at → finished_at: introspection, checks, the table locked, rows streamed out, transformed and, in place, streamed back into the table emptied in the run's transaction (a reload: the bench's table has no trigger or foreign key that would make it an UPDATE … FROM a stage), or the copy with the keys set aside and validated and the target's snapshot (bridge).",
      ...cpuReport(pipeCpu, bridgeCpu, os.cpus().length),
    );
  } catch (error) {
    report.push(...failureReport('Anonymization bench', error, log));
  } finally {
    await t?.close();
    for (const db of dbs) await db.drop().catch(() => {});
  }
  await publishReport('anonymize', report);
  return ok;
}

if (import.meta.filename === process.argv[1]) process.exitCode = (await runAnonymizeBench()) ? 0 : 1;

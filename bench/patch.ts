// The patch bench (`npm run bench`, or BENCH_ONLY=patch; also `node bench/patch.ts`): a data patch
// on a large table, through the service, next to the same statement run by the engine's own client.
// A generated 1,000,000-row table (`accounts`, about 150 bytes a row; bench/patch-engines.ts) in a
// throw-away PostgreSQL database and a throw-away MariaDB (or MySQL) database on 127.0.0.1, and one
// UPDATE touching 100,000 of its rows spread over the whole table. Several times, on each engine:
//   - plain: the UPDATE run by psql / mariadb, timed by the client itself (psql `\timing`, the
//     `(x sec)` of mariadb -vvv): the statement's round trip in autocommit;
//   - dbops, the real service in this process (Fastify inject; pg-boss worker with the real run
//     handlers; bench/patch-app.ts), the same SQL saved as a patch: the dry-run (the HTTP request),
//     the execute (before-images + the UPDATE, as a run) and the rollback (as a run). A run's time is
//     its own started_at → finished_at, read from the run record (the API rounds them to seconds), so
//     the queue's pick-up is not counted; POST → finished_at, which counts it, is reported beside.
// Before each measured operation the table is loaded again from scratch and written out (VACUUM
// ANALYZE + CHECKPOINT; ANALYZE TABLE + FLUSH TABLES … FOR EXPORT), so dead rows, bloat, dirty pages
// and checkpoints of one measurement never fall on the next; a rollback runs right after its execute
// (what it restores), and the table must then hash as it did when loaded. The target database calls
// of each operation are timed one by one (introspection, each statement, each transaction's begin
// and commit) to show where the time goes.
// Target: on PostgreSQL, backup + execute at most 1.5× the plain UPDATE (medians). Prints a Markdown
// report and updates its section of bench/results.md; exits 1 when the target is missed or a check
// fails. The databases are dropped at the end, whatever happened.
//
// Environment: BENCH_PATCH_ROWS (table rows, default 1000000), BENCH_PATCH_TOUCHED (rows the patch
// changes, default 100000: the UPDATE's WHERE is `id % (rows / touched) = 0`), BENCH_PATCH_REPEATS
// (default 3, after a warm-up on a small table), BENCH_PATCH_ENGINES (default `postgresql,mysql`),
// TEST_PG_URL and TEST_MYSQL_URL (the servers, as for the tests).
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, TestApp } from '../test/support/app.ts';
import { connectionBody } from '../test/support/connections.ts';
import { positiveNumber } from './env.ts';
import { BENCH_STATEMENT_TIMEOUT_MS, createPatchBenchApp, type TraceStep } from './patch-app.ts';
import {
  mysqlPatchEngine,
  type PatchEngine,
  type PatchTarget,
  postgresPatchEngine,
} from './patch-engines.ts';
import {
  type EngineOutcome,
  type Options,
  type Repeat,
  type RunMeasure,
  report,
  verdict,
  WARMUP_ROWS,
} from './patch-report.ts';
import { updateResults } from './results.ts';

const API = '/api/v1';
const TABLE = 'accounts';
const WARMUP_TABLE = 'accounts_warmup';
const ENGINES: Record<string, PatchEngine> = { postgresql: postgresPatchEngine, mysql: mysqlPatchEngine };

const log = (message: string) => console.error(`[patch] ${message}`);

/** The patch, the same text for the CLI and for the service. */
export const patchSql = (table: string, step: number) =>
  `UPDATE ${table} SET balance = balance + 1, status = 'migrated' WHERE id % ${step} = 0`;

function options(): Options {
  const names = (process.env.BENCH_PATCH_ENGINES ?? 'postgresql,mysql').split(',').map((s) => s.trim());
  const unknown = names.find((name) => !(name in ENGINES));
  if (unknown !== undefined) {
    throw new Error(`BENCH_PATCH_ENGINES: unknown engine "${unknown}" (postgresql, mysql)`);
  }
  const rows = Math.round(positiveNumber('BENCH_PATCH_ROWS', 1_000_000));
  const wanted = Math.round(positiveNumber('BENCH_PATCH_TOUCHED', 100_000));
  if (wanted > rows)
    throw new Error(`BENCH_PATCH_TOUCHED (${wanted}) is more than BENCH_PATCH_ROWS (${rows})`);
  const step = Math.max(1, Math.round(rows / wanted));
  return {
    rows,
    step,
    touched: Math.floor(rows / step),
    repeats: Math.round(positiveNumber('BENCH_PATCH_REPEATS', 3)),
    engines: names.map((name) => ENGINES[name]!),
    sql: patchSql(TABLE, step),
  };
}

/** The service, one organization owner and one project, shared by the engines. */
interface Service {
  app: TestApp;
  owner: Client;
  projectId: string;
  /** What the target databases were asked since the last `take()`. */
  trace: TraceStep[];
}

function take(service: Service): TraceStep[] {
  return service.trace.splice(0);
}

function expectStatus(response: { status: number; body: unknown }, status: number, what: string): void {
  if (response.status !== status)
    throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
}

async function createPatch(service: Service, connectionId: string, sql: string, title: string) {
  const created = await service.owner.post(`${API}/patches`, {
    project_id: service.projectId,
    connection_id: connectionId,
    title,
    sql,
  });
  expectStatus(created, 201, 'POST /patches');
  return created.body.id as string;
}

async function dryRun(service: Service, patchId: string) {
  take(service);
  const started = performance.now();
  const response = await service.owner.post(`${API}/patches/${patchId}/dry-run`);
  const ms = performance.now() - started;
  expectStatus(response, 200, 'dry-run');
  return { ms, total: Number(response.body.total_affected_rows), trace: take(service) };
}

/** POSTs execute or rollback, waits for the run's end; a run that did not succeed is an error. */
async function runPatch(
  service: Service,
  patchId: string,
  action: 'execute' | 'rollback',
): Promise<RunMeasure> {
  take(service);
  const posted = Date.now();
  const response = await service.owner.post(`${API}/patches/${patchId}/${action}`, {});
  expectStatus(response, 202, action);
  const runId = response.body.id as string;
  const deadline = posted + BENCH_STATEMENT_TIMEOUT_MS;
  let run: Record<string, unknown>;
  for (;;) {
    const polled = await service.owner.get(`${API}/runs/${runId}`);
    run = polled.body;
    if (['succeeded', 'failed', 'cancelled'].includes(String(run.status))) break;
    if (Date.now() > deadline) throw new Error(`${action} run ${runId} stayed ${run.status}`);
    await sleep(50);
  }
  if (run.status !== 'succeeded') throw new Error(`${action} run ${run.status}: ${run.error}`);
  // The API shows whole seconds; the run record has the milliseconds.
  const record = await service.app.store.db
    .selectFrom('runs')
    .select(['started_at', 'finished_at'])
    .where('id', '=', runId)
    .executeTakeFirstOrThrow();
  const finished = record.finished_at!.getTime();
  return {
    runMs: finished - record.started_at!.getTime(),
    endToEndMs: finished - posted,
    trace: take(service),
    result: run.result as Record<string, unknown>,
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function benchEngine(
  engine: PatchEngine,
  service: Service,
  opts: Options,
): Promise<EngineOutcome | string> {
  const opened = await engine.open();
  if (typeof opened === 'string') return opened;
  const target: PatchTarget = opened;
  const checks: string[] = [];
  const check = (ok: boolean, failure: string) => {
    if (!ok) {
      checks.push(failure);
      log(`${target.engine}: CHECK FAILED: ${failure}`);
    }
  };
  try {
    log(`${target.engine}: loading ${opts.rows.toLocaleString('en-US')} rows into ${target.database.name} …`);
    const loadMs = await timed(() => target.load(TABLE, opts.rows));
    const pristine = await target.checksum(TABLE);
    const tableBytes = await target.size(TABLE);
    log(
      `${target.engine}: loaded in ${seconds(loadMs)}, ${(tableBytes / 2 ** 20).toFixed(0)} MiB; warm-up …`,
    );

    const connection = await service.owner.post(
      `${API}/connections`,
      connectionBody(service.projectId, target.database.url, { name: `bench ${target.engine}` }),
    );
    expectStatus(connection, 201, 'POST /connections');
    const connectionId = connection.body.id as string;

    // Warm-up on a small table: pools, code paths, the CLI binary's pages; nothing of it is reported.
    await target.load(WARMUP_TABLE, WARMUP_ROWS);
    const warmSql = patchSql(WARMUP_TABLE, 10);
    await target.plain(warmSql);
    await target.noop();
    const warm = await createPatch(service, connectionId, warmSql, 'bench warm-up');
    await dryRun(service, warm);
    await runPatch(service, warm, 'execute');
    await runPatch(service, warm, 'rollback');

    const repeats: Repeat[] = [];
    const resetMs: number[] = [];
    const reset = async () => resetMs.push(await timed(() => target.load(TABLE, opts.rows)));
    for (let i = 0; i < opts.repeats; i++) {
      const patchId = await createPatch(service, connectionId, opts.sql, `bench ${i + 1}`);

      await reset();
      const plain = await target.plain(opts.sql);
      check(plain.rows === opts.touched, `plain UPDATE changed ${plain.rows} rows, not ${opts.touched}`);
      const noopMs = await target.noop();

      await reset();
      const dry = await dryRun(service, patchId);
      check(dry.total === opts.touched, `dry-run reported ${dry.total} rows, not ${opts.touched}`);
      check((await target.checksum(TABLE)) === pristine, 'the dry-run changed the table');

      await reset();
      const execute = await runPatch(service, patchId, 'execute');
      const total = Number(execute.result.total_affected_rows);
      const backups = execute.result.backups as { rows: number }[];
      check(total === opts.touched, `execute changed ${total} rows, not ${opts.touched}`);
      check(backups[0]?.rows === opts.touched, `execute saved ${backups[0]?.rows} before-images`);
      const rollback = await runPatch(service, patchId, 'rollback');
      const restored = (rollback.result.restored as { rows: number }[])[0]?.rows;
      check(restored === opts.touched, `rollback restored ${restored} rows, not ${opts.touched}`);
      check((await target.checksum(TABLE)) === pristine, 'after the rollback the table is not as loaded');

      repeats.push({ plain, noopMs, dryRunMs: dry.ms, dryRunTrace: dry.trace, execute, rollback });
      log(
        `${target.engine} ${i + 1}/${opts.repeats}: plain ${Math.round(plain.ms)} ms, dry-run ${Math.round(dry.ms)} ms, ` +
          `execute ${Math.round(execute.runMs)} ms (end to end ${Math.round(execute.endToEndMs)}), ` +
          `rollback ${Math.round(rollback.runMs)} ms (${Math.round(rollback.endToEndMs)})`,
      );
    }
    return {
      engine: target.engine,
      server: target.server,
      client: target.client,
      tableBytes,
      loadMs,
      resetMs,
      repeats,
      checks,
    };
  } finally {
    await target.drop();
    log(`${target.engine}: dropped ${target.database.name}`);
  }
}

/** Runs the patch bench; false when the target is missed or a check fails. */
export async function runPatchBench(): Promise<boolean> {
  const opts = options();
  const loadBefore = os.loadavg();
  const results: EngineOutcome[] = [];
  const notes: string[] = [];
  let failed = false;
  const trace: TraceStep[] = [];
  const app = await createPatchBenchApp(trace);
  try {
    const owner = (await app.createOrg('Patch bench')).owner;
    const project = await owner.post(`${API}/projects`, { name: 'Patch bench' });
    expectStatus(project, 201, 'POST /projects');
    const service: Service = { app, owner, projectId: project.body.id, trace };
    for (const engine of opts.engines) {
      const outcome = await benchEngine(engine, service, opts).catch((error: unknown) => {
        // One engine's failure is reported; the other engine still runs.
        console.error(error);
        failed = true;
        return `FAIL: ${engine.label}: ${error instanceof Error ? error.message : String(error)}`;
      });
      if (typeof outcome === 'string') {
        console.error(outcome);
        notes.push(outcome);
      } else results.push(outcome);
    }
  } finally {
    await app.close();
  }
  const markdown = report(results, notes, opts, loadBefore);
  process.stdout.write(`\n${markdown}`);
  await updateResults('patch', markdown);
  return !failed && results.every((r) => verdict(r).startsWith('ok'));
}

if (import.meta.main) {
  runPatchBench().then(
    (ok) => {
      if (!ok) process.exitCode = 1;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}

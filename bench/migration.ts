// The migration bench (`npm run bench`, or BENCH_ONLY=migration; also `node bench/migration.ts`):
// what `POST /migrations/compare` costs on a large schema. The generated schema of the schema bench
// (bench/schema-fixture.ts, 1,000 tables × 20 columns) is loaded into two throw-away PostgreSQL
// databases on 127.0.0.1; the scripted changes of bench/schema-changes.ts, scaled so that 5 % of the
// tables are changed (dropped, added, columns, indexes, keys, constraints, comments), are applied to
// the source. Then, several times, what the compare does (src/modules/migrations/migrations.service.ts):
//   - introspect the source (open + introspect + close, a new connection as the service makes one);
//   - introspect the target and read its table statistics (one handle);
//   - planMigration(source, target): plan, render, annotate, derive the rollback;
//   - lintStatements() on the plan, with the target's model and statistics.
// Both databases also hold 200 views, 100 functions and 50 triggers (bench/schema-objects.ts),
// some of them changed on the source. Target: the whole under 3 s (median), both introspections
// included. Checked once afterwards, not
// timed: the plan applied to the target makes its schema hash the source's.
// Prints a Markdown report and updates its section of bench/results.md; exits 1 when the target is
// missed or the check fails. The databases are dropped at the end, whatever happened.
//
// Environment: BENCH_SCHEMA_TABLES (default 1000, as the schema bench), BENCH_MIGRATION_CHANGED
// (changed tables, as a fraction of the tables; default 0.05), BENCH_MIGRATION_RUNS (measured runs,
// default 5, after one warm-up), TEST_PG_URL (the server, as for the tests).
import os from 'node:os';
import { dialects, migrationDialects } from '../src/dialects/index.ts';
import {
  type LintWarning,
  lintStatements,
  type Migration,
  planMigration,
} from '../src/engine/migration/index.ts';
import { schemaHash } from '../src/engine/schema/hash.ts';
import { positiveNumber } from './env.ts';
import { updateResults } from './results.ts';
import { scriptChanges } from './schema-changes.ts';
import { type BenchDatabase, postgresEngine } from './schema-engines.ts';
import { generateSchema, postgresDdl } from './schema-fixture.ts';
import { OBJECT_COUNTS, objectsDdl } from './schema-objects.ts';
import { median } from './schema-report.ts';

const TARGET_MS = 3000;
/** What apply sets (src/modules/migrations/migration-content.ts), so lint sees the same context. */
const LOCK_TIMEOUT_MS = 5_000;

interface Run {
  sourceMs: number;
  targetMs: number;
  statsMs: number;
  planMs: number;
  lintMs: number;
  totalMs: number;
  migration: Migration;
  warnings: LintWarning[];
  sourceHash: string;
  targetHash: string;
}

/** The report's columns, in order. */
const PARTS: ((r: Run) => number)[] = [
  (r) => r.sourceMs,
  (r) => r.targetMs,
  (r) => r.statsMs,
  (r) => r.planMs,
  (r) => r.lintMs,
  (r) => r.totalMs,
];

const log = (message: string) => console.error(`[migration] ${message}`);
const fmtMs = (ms: number) => (ms >= 100 ? Math.round(ms).toLocaleString('en-US') : ms.toFixed(1));

async function compareOnce(source: BenchDatabase, target: BenchDatabase): Promise<Run> {
  const dialect = dialects.postgresql;
  const t0 = performance.now();
  const sourceHandle = await dialect.open(source.config);
  let sourceModel: Awaited<ReturnType<typeof sourceHandle.introspect>>;
  try {
    sourceModel = await sourceHandle.introspect();
  } finally {
    await sourceHandle.close();
  }
  const t1 = performance.now();
  const targetHandle = await dialect.open(target.config);
  let targetModel: typeof sourceModel;
  let stats: Awaited<ReturnType<typeof targetHandle.tableStats>>;
  let t2: number;
  try {
    targetModel = await targetHandle.introspect();
    t2 = performance.now();
    stats = await targetHandle.tableStats();
  } finally {
    await targetHandle.close();
  }
  const t3 = performance.now();
  const migration = planMigration(sourceModel, targetModel, migrationDialects.postgresql);
  const t4 = performance.now();
  const warnings = lintStatements(migration.statements, {
    dialect: 'postgresql',
    target: targetModel,
    stats,
    lock_timeout_ms: LOCK_TIMEOUT_MS,
  });
  const t5 = performance.now();
  return {
    sourceMs: t1 - t0,
    targetMs: t2 - t1,
    statsMs: t3 - t2,
    planMs: t4 - t3,
    lintMs: t5 - t4,
    totalMs: t5 - t0,
    migration,
    warnings,
    sourceHash: schemaHash(sourceModel),
    targetHash: schemaHash(targetModel),
  };
}

/** Applies the plan to the target; the target's hash afterwards, or why it could not. */
async function applyCheck(run: Run, target: BenchDatabase): Promise<string | null> {
  const handle = await dialects.postgresql.open(target.config);
  try {
    const result = await handle.apply(run.migration.statements);
    if (result.failed !== null || result.cancelled) {
      return `apply failed at statement ${result.failed?.index}: ${JSON.stringify(result.failed?.error).slice(0, 300)}`;
    }
    const after = schemaHash(await handle.introspect());
    return after === run.sourceHash ? null : `the target's hash after apply is not the source's`;
  } finally {
    await handle.close();
  }
}

interface Outcome {
  tables: number;
  changedTables: number;
  scripted: number;
  server: string;
  loadMs: number;
  runs: Run[];
  firstRun: Run;
  check: string | null;
}

async function bench(tables: number, fraction: number, runs: number): Promise<Outcome | string> {
  const specs = generateSchema(tables);
  const changedTables = Math.max(13, Math.round(tables * fraction));
  const q = dialects.postgresql.quoteIdent;
  const changes = scriptChanges(specs, q, changedTables);
  const created: BenchDatabase[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const database = await postgresEngine.create();
      if (typeof database === 'string') return database;
      created.push(database);
    }
    const [source, target] = created as [BenchDatabase, BenchDatabase];
    const ddl = postgresDdl(specs, q);
    log(`creating ${specs.length} tables in ${source.name} and ${target.name} …`);
    const loadStarted = performance.now();
    await Promise.all([postgresEngine.execute(source.url, ddl), postgresEngine.execute(target.url, ddl)]);
    const loadMs = performance.now() - loadStarted;
    log(`created in ${(loadMs / 1000).toFixed(1)} s; ${changes.expected.length} changes to the source …`);
    // Views, functions and triggers on both; the source's after its changes, over what it still has.
    await postgresEngine.execute(target.url, objectsDdl(specs, q, new Set(), false));
    await postgresEngine.execute(source.url, changes.pg);
    const gone = new Set(changes.expected.filter((c) => c.kind === 'table_removed').map((c) => c.table));
    await postgresEngine.execute(source.url, objectsDdl(specs, q, gone, true));

    const firstRun = await compareOnce(source, target);
    log(`warm-up: ${Math.round(firstRun.totalMs)} ms, ${firstRun.migration.statements.length} statements`);
    const measured: Run[] = [];
    for (let run = 0; run < runs; run++) {
      measured.push(await compareOnce(source, target));
      log(`run ${run + 1}/${runs}: ${Math.round(measured.at(-1)!.totalMs)} ms`);
    }
    const probe = await dialects.postgresql.open(target.config);
    const server = probe.serverVersion;
    await probe.close();
    log('applying the plan to the target (check, not timed) …');
    const check = await applyCheck(measured.at(-1)!, target).catch((error: unknown) =>
      error instanceof Error ? error.message : String(error),
    );
    return {
      tables: specs.length,
      changedTables,
      scripted: changes.expected.length,
      server,
      loadMs,
      runs: measured,
      firstRun,
      check,
    };
  } finally {
    for (const database of created) await database.drop();
    log(`dropped ${created.map((d) => d.name).join(', ')}`);
  }
}

function verdict(outcome: Outcome): string {
  const problems: string[] = [];
  if (median(outcome.runs.map((r) => r.totalMs)) >= TARGET_MS)
    problems.push(`not under ${TARGET_MS / 1000} s`);
  if (outcome.check !== null) problems.push(`check: ${outcome.check}`);
  const statements = new Set(outcome.runs.map((r) => r.migration.sql));
  if (statements.size > 1) problems.push('the plan differs between runs');
  return problems.length === 0 ? 'ok' : `FAIL: ${problems.join('; ')}`;
}

function report(outcome: Outcome | string, runs: number, loadBefore: number[]): string {
  const cpus = os.cpus();
  const load = (avg: number[]) => avg.map((n) => n.toFixed(2)).join(' / ');
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    '# dbops benchmark: migration compare (introspect both, plan, lint)',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()})`,
    `- Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM`,
  ];
  if (typeof outcome === 'string') {
    lines.push('', `- ${outcome}`);
    return `${lines.join('\n')}\n`;
  }
  const { runs: measured } = outcome;
  const col = (f: (r: Run) => number) => measured.map(f);
  const last = measured.at(-1)!;
  const bySeverity = (severity: string) => last.warnings.filter((w) => w.severity === severity).length;
  const rules = new Map<string, number>();
  for (const w of last.warnings) rules.set(w.rule, (rules.get(w.rule) ?? 0) + 1);
  lines.push(
    `- PostgreSQL ${outcome.server} on 127.0.0.1, two databases (source, target)`,
    `- Schema: ${outcome.tables.toLocaleString('en-US')} tables of bench/schema-fixture.ts in both; on the source, ` +
      `${outcome.scripted} scripted changes of bench/schema-changes.ts on ${outcome.changedTables} tables ` +
      `(${((outcome.changedTables / outcome.tables) * 100).toFixed(1)} %: tables dropped and added, columns added, dropped, retyped, defaults, NOT NULL, indexes, foreign keys, unique and check constraints, comments); tables empty`,
    `- Objects (bench/schema-objects.ts) in both: ${OBJECT_COUNTS.views} views (a quarter over other views), ${OBJECT_COUNTS.functions} SQL functions, ${OBJECT_COUNTS.triggers} triggers; on the source every tenth view and function changed, and the views over its dropped tables gone`,
    '- Each run, as the compare does it, one after the other: open + introspect + close on the source; ' +
      'open + introspect + tableStats() (all tables) + close on the target; planMigration(); lintStatements() with the target model and statistics',
    `- Runs: one warm-up (${fmtMs(outcome.firstRun.totalMs)} ms), then ${runs} measured; wall-clock times`,
    `- Target: the whole under ${TARGET_MS / 1000} s (median)`,
    `- Load average (1 / 5 / 15 min) before: ${load(loadBefore)}, after: ${load(os.loadavg())}`,
    '',
    row(['', 'Introspect source', 'Introspect target', 'Target stats', 'Plan', 'Lint', 'Total', 'Result']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---']),
    row(['median', ...PARTS.map((f) => `${fmtMs(median(col(f)))} ms`), verdict(outcome)]),
    row(['min', ...PARTS.map((f) => `${fmtMs(Math.min(...col(f)))} ms`), '']),
    '',
    `- Introspection includes opening and closing the handle. Plan: ${last.migration.operations.length} operations, ` +
      `${last.migration.statements.length} statements (${last.migration.statements.filter((s) => s.destructive).length} destructive), ` +
      `${Math.round(Buffer.byteLength(last.migration.sql) / 1024)} KiB of SQL, rollback ${last.migration.rollback === null ? 'not derivable for every statement' : `${last.migration.rollback.length} statements`}`,
    `- Lint: ${last.warnings.length} warnings (${bySeverity('error')} error, ${bySeverity('warning')} warning, ${bySeverity('info')} info): ` +
      [...rules].map(([rule, n]) => `${rule} ${n}`).join(', '),
    `- Check (not timed): the plan applied to the target, its schema hash then equals the source's: ${outcome.check ?? 'yes'}`,
  );
  return `${lines.join('\n')}\n`;
}

/** Runs the migration bench; false when the target is missed or the check fails. */
export async function runMigrationBench(): Promise<boolean> {
  const tables = Math.round(positiveNumber('BENCH_SCHEMA_TABLES', 1000));
  const fraction = positiveNumber('BENCH_MIGRATION_CHANGED', 0.05);
  const runs = Math.round(positiveNumber('BENCH_MIGRATION_RUNS', 5));
  const loadBefore = os.loadavg();
  let failed = false;
  const outcome = await bench(tables, fraction, runs).catch((error: unknown) => {
    console.error(error);
    failed = true;
    return `FAIL: ${error instanceof Error ? error.message : String(error)}`;
  });
  const markdown = report(outcome, runs, loadBefore);
  process.stdout.write(`\n${markdown}`);
  await updateResults('migration', markdown);
  return !failed && typeof outcome !== 'string' && verdict(outcome) === 'ok';
}

if (import.meta.main) {
  runMigrationBench().then(
    (ok) => {
      if (!ok) process.exitCode = 1;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}

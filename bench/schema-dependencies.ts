// The dependency-dense compare bench (`node bench/schema-dependencies.ts`): what the compare costs
// on a schema as long-lived applications have them, beside the engine's own dump of it. The
// generated tables of bench/schema-fixture.ts (500 by default) go into two throw-away PostgreSQL
// databases with 150 functions in three schemas (SQL-standard bodies calling another schema's
// functions, functions returning SETOF a table, trigger functions) and 450 triggers; the source also
// gets the scripted changes of bench/schema-changes.ts. Timed, several runs each, one after the
// other: `pg_dump --schema-only` of the target, and the compare (introspect the source while the target is
// introspected and its statistics read, as POST /migrations/compare does; then plan, lint). Target: the compare's median at most twice the
// dump's. Checked once, not timed: the plan applied to the target gives it the source's hash.
// Prints a Markdown report and updates its section of bench/results.md; exits 1 when the target is
// missed or the check fails. The databases are dropped at the end, whatever happened.
//
// Environment: BENCH_SCHEMA_TABLES (default 500), BENCH_DEPENDENCIES_RUNS (default 5, after one
// warm-up), TEST_PG_URL (the server, as for the tests).
import os from 'node:os';
import { dialects, migrationDialects } from '../src/dialects/index.ts';
import { lintStatements, type Migration, planMigration } from '../src/engine/migration/index.ts';
import { schemaHash } from '../src/engine/schema/hash.ts';
import { positiveNumber } from './env.ts';
import { updateResults } from './results.ts';
import { runClient } from './run-client.ts';
import { scriptChanges } from './schema-changes.ts';
import { type BenchDatabase, postgresEngine } from './schema-engines.ts';
import { generateSchema, postgresDdl, type Quote, type TableSpec } from './schema-fixture.ts';
import { median } from './schema-report.ts';

const FUNCTIONS = 150;
const TRIGGERS = 450;
const TARGET_RATIO = 2;

const parts = ['sourceMs', 'targetMs', 'planMs', 'lintMs'] as const;
const log = (message: string) => console.error(`[schema-dependencies] ${message}`);
const ms = (value: number) => (value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1));

/** Functions and triggers over the tables that exist (`gone`: the source dropped them). */
function dependencyDdl(specs: TableSpec[], q: Quote, gone: Set<string>, changed: boolean): string[] {
  const tables = specs.filter((t) => !gone.has(t.name));
  const table = (i: number) => `public.${q(tables[(i * 7) % tables.length]!.name)}`;
  const out = ['create schema util; create schema report; create schema audit;'];
  const third = FUNCTIONS / 3;
  for (let i = 0; i < third; i++)
    out.push(
      `create function util.${q(`add_${i}`)}(p bigint) returns bigint language sql immutable begin atomic select p + ${changed && i % 10 === 0 ? i + 1 : i}; end;`,
    );
  for (let i = 0; i < third; i++)
    out.push(
      `create function report.${q(`rows_${i}`)}(p bigint) returns setof ${table(i)} language sql stable as $$ select * from ${table(i)} where ${q('id')} > p $$;`,
    );
  for (let i = 0; i < third - 1; i++)
    out.push(
      `create function report.${q(`calc_${i}`)}(p bigint) returns bigint language sql stable begin atomic select util.${q(`add_${(i * 3) % third}`)}(p) * 2; end;`,
    );
  out.push(
    `create function audit.${q('touch')}() returns trigger language plpgsql as $$ begin new.${q('created_at')} := now(); return new; end $$;`,
  );
  for (let i = 0; i < TRIGGERS; i++)
    out.push(
      `create trigger ${q(`touch_${i}`)} before update on public.${q(tables[i % tables.length]!.name)} for each row execute function audit.${q('touch')}();`,
    );
  const batches: string[] = [];
  for (let i = 0; i < out.length; i += 50) batches.push(out.slice(i, i + 50).join('\n'));
  return batches;
}

interface Run {
  dumpMs: number;
  compareMs: number;
  sourceMs: number;
  targetMs: number;
  planMs: number;
  lintMs: number;
  migration: Migration;
  sourceHash: string;
}

async function compareOnce(source: BenchDatabase, target: BenchDatabase): Promise<Omit<Run, 'dumpMs'>> {
  const dialect = dialects.postgresql;
  const started = performance.now();
  // As the compare service does: both sides at once, the target's statistics beside its catalog
  // (the server answers each on its own backend, on the other core).
  const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => [
    await work(),
    performance.now() - started,
  ];
  const [[sourceModel, sourceMs], [[targetModel, stats], targetMs]] = await Promise.all([
    timed(async () => {
      const handle = await dialect.open(source.config);
      return handle.introspect().finally(() => handle.close());
    }),
    timed(async () => {
      const handle = await dialect.open(target.config);
      return Promise.all([handle.introspect(), handle.tableStats()]).finally(() => handle.close());
    }),
  ]);
  const planned = performance.now();
  const migration = planMigration(sourceModel, targetModel, migrationDialects.postgresql);
  const linted = performance.now();
  lintStatements(migration.statements, {
    dialect: 'postgresql',
    target: targetModel,
    stats,
    lock_timeout_ms: 5_000,
  });
  const done = performance.now();
  return {
    compareMs: done - started,
    sourceMs,
    targetMs,
    planMs: linted - planned,
    lintMs: done - linted,
    migration,
    sourceHash: schemaHash(sourceModel),
  };
}

async function dumpOnce(target: BenchDatabase): Promise<number> {
  const dump = postgresEngine.dump(target, 'postgresql');
  return (await runClient(dump.command, dump.args, dump.env)).wallMs;
}

async function check(run: Run, target: BenchDatabase): Promise<string | null> {
  const handle = await dialects.postgresql.open(target.config);
  try {
    const applied = await handle.apply(run.migration.statements);
    if (applied.failed !== null)
      return `apply failed at statement ${applied.failed.index}: ${JSON.stringify(applied.failed.error).slice(0, 300)}`;
    return schemaHash(await handle.introspect()) === run.sourceHash
      ? null
      : "the target's hash is not the source's";
  } finally {
    await handle.close();
  }
}

async function bench(tables: number, runs: number): Promise<string> {
  const specs = generateSchema(tables);
  const q = dialects.postgresql.quoteIdent;
  const changes = scriptChanges(specs, q, Math.max(13, Math.round(tables * 0.05)));
  const created: BenchDatabase[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const database = await postgresEngine.create();
      if (typeof database === 'string') return database;
      created.push(database);
    }
    const [source, target] = created as [BenchDatabase, BenchDatabase];
    const ddl = postgresDdl(specs, q);
    log(`creating ${specs.length} tables, ${FUNCTIONS} functions and ${TRIGGERS} triggers twice …`);
    await Promise.all([postgresEngine.execute(source.url, ddl), postgresEngine.execute(target.url, ddl)]);
    await postgresEngine.execute(target.url, dependencyDdl(specs, q, new Set(), false));
    await postgresEngine.execute(source.url, changes.pg);
    const gone = new Set(changes.expected.filter((c) => c.kind === 'table_removed').map((c) => c.table));
    await postgresEngine.execute(source.url, dependencyDdl(specs, q, gone, true));

    await dumpOnce(target);
    await compareOnce(source, target);
    const measured: Run[] = [];
    for (let run = 0; run < runs; run++) {
      const dumpMs = await dumpOnce(target);
      measured.push({ dumpMs, ...(await compareOnce(source, target)) });
      log(`run ${run + 1}/${runs}: dump ${ms(dumpMs)} ms, compare ${ms(measured.at(-1)!.compareMs)} ms`);
    }
    const outcome = await check(measured.at(-1)!, target).catch((error: unknown) => String(error));
    const dump = median(measured.map((r) => r.dumpMs));
    const compare = median(measured.map((r) => r.compareMs));
    const ratio = compare / dump;
    const last = measured.at(-1)!;
    const verdict =
      ratio <= TARGET_RATIO && outcome === null
        ? 'ok'
        : `FAIL: ${[ratio > TARGET_RATIO ? `ratio ${ratio.toFixed(2)} over ${TARGET_RATIO}` : '', outcome ?? ''].filter(Boolean).join('; ')}`;
    const cpus = os.cpus();
    return [
      '# dbops benchmark: compare on a dependency-dense schema, beside pg_dump',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}); load average before the report ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(' / ')}`,
      `- Schema: ${specs.length} tables of bench/schema-fixture.ts, ${FUNCTIONS} functions in three schemas (a third SQL-standard bodies calling another schema's, a third returning SETOF a table, a trigger function), ${TRIGGERS} triggers; the source with ${changes.expected.length} scripted changes and every tenth called function changed`,
      '- Dump: `pg_dump --schema-only` of the target, spawned, read through a pipe. Compare: introspect the source while the target is introspected and its statistics read (both sides at once, each column timed from the start), plan, lint (as `POST /migrations/compare`)',
      `- Runs: ${runs} after a warm-up, one after the other; target: the compare at most ${TARGET_RATIO}× the dump (median)`,
      '',
      '|  | pg_dump | Compare | Introspect source | Introspect target + stats | Plan | Lint | Ratio | Result |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
      `| median | ${[dump, compare, ...parts.map((part) => median(measured.map((r) => r[part])))].map((v) => `${ms(v)} ms`).join(' | ')} | ${ratio.toFixed(2)} | ${verdict} |`,
      '',
      `- Plan: ${last.migration.statements.length} statements; check (not timed): applied to the target, its hash is then the source's: ${outcome ?? 'yes'}`,
      '',
    ].join('\n');
  } finally {
    for (const database of created) await database.drop();
  }
}

/** Runs the bench and writes its section of bench/results.md; false when the target is missed or the check fails. */
export async function runSchemaDependenciesBench(): Promise<boolean> {
  const tables = Math.round(positiveNumber('BENCH_SCHEMA_TABLES', 500));
  const runs = Math.round(positiveNumber('BENCH_DEPENDENCIES_RUNS', 5));
  const markdown = await bench(tables, runs);
  process.stdout.write(`\n${markdown}`);
  await updateResults('schema-dependencies', markdown);
  return markdown.includes('| ok |');
}

if (import.meta.main) {
  runSchemaDependenciesBench().then(
    (ok) => {
      if (!ok) process.exitCode = 1;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}

// The schema bench (`npm run bench`, or BENCH_ONLY=schema; also `node bench/schema.ts`): a generated
// schema of 1,000 tables × 20 columns with foreign keys, indexes and constraints
// (bench/schema-fixture.ts), loaded into a throw-away PostgreSQL database and a throw-away MariaDB
// (or MySQL) database on 127.0.0.1. On each, side by side, several runs of:
//   - ours: the dialect's open() + introspect() + schemaHash() + close(), a new connection per run
//     as the dump tool makes one;
//   - the engine's own dump tool: `pg_dump --schema-only`, `mariadb-dump --no-data` (mysqldump on
//     MySQL), spawned, its output read through a pipe until it exits.
// Then a few hundred scripted changes are applied to the database, it is introspected again, and
// the diff of the two models is timed (and checked: every scripted change, nothing else).
// Targets: ours no slower than the dump tool (median ratio ≤ 1.0); the diff under 200 ms (median).
// Prints a Markdown report and updates its section of bench/results.md; exits 1 when a target is
// missed or a check fails. The databases are dropped at the end, whatever happened.
//
// Environment: BENCH_SCHEMA_TABLES (default 1000), BENCH_SCHEMA_RUNS (measured runs of each side,
// default 5, after one warm-up), BENCH_SCHEMA_DIFF_RUNS (default 20), BENCH_SCHEMA_ENGINES (default
// `postgresql,mysql`), TEST_PG_URL and TEST_MYSQL_URL (the servers, as for the tests).
import os from 'node:os';
import { diffSchemas, type SchemaDiff } from '../src/engine/schema/diff.ts';
import { canonicalJson, schemaHash } from '../src/engine/schema/hash.ts';
import type { DialectName, SchemaModel } from '../src/engine/schema/model.ts';
import { positiveNumber } from './env.ts';
import { updateResults } from './results.ts';
import { runClient } from './run-client.ts';
import { type ExpectedChange, expectedFor, scriptChanges } from './schema-changes.ts';
import {
  type BenchDatabase,
  type DumpCommand,
  type Engine,
  mysqlEngine,
  postgresEngine,
  toolVersion,
} from './schema-engines.ts';
import {
  expectedCounts,
  generateSchema,
  mysqlDdl,
  postgresDdl,
  type SchemaCounts,
  type TableSpec,
} from './schema-fixture.ts';
import {
  type DumpRun,
  diffVerdict,
  type EngineResult,
  introspectionVerdict,
  median,
  type OursRun,
  report,
} from './schema-report.ts';

const CATALOG_RUNS = 3;
const ENGINES: Record<DialectName, Engine> = { postgresql: postgresEngine, mysql: mysqlEngine };

interface Options {
  tables: number;
  runs: number;
  diffRuns: number;
  engines: Engine[];
}

function options(): Options {
  const names = (process.env.BENCH_SCHEMA_ENGINES ?? 'postgresql,mysql').split(',').map((s) => s.trim());
  const unknown = names.find((name) => !(name in ENGINES));
  if (unknown !== undefined) {
    throw new Error(`BENCH_SCHEMA_ENGINES: unknown engine "${unknown}" (postgresql, mysql)`);
  }
  return {
    tables: Math.round(positiveNumber('BENCH_SCHEMA_TABLES', 1000)),
    runs: Math.round(positiveNumber('BENCH_SCHEMA_RUNS', 5)),
    diffRuns: Math.round(positiveNumber('BENCH_SCHEMA_DIFF_RUNS', 20)),
    engines: names.map((name) => ENGINES[name as DialectName]),
  };
}

const log = (message: string) => console.error(`[schema] ${message}`);

async function runOurs(engine: Engine, database: BenchDatabase): Promise<OursRun> {
  const t0 = performance.now();
  const handle = await engine.dialect.open(database.config);
  const t1 = performance.now();
  let model: SchemaModel;
  try {
    model = await handle.introspect();
  } catch (error) {
    await handle.close();
    throw error;
  }
  const t2 = performance.now();
  const hash = schemaHash(model);
  const t3 = performance.now();
  await handle.close();
  const t4 = performance.now();
  return {
    totalMs: t4 - t0,
    connectMs: t1 - t0,
    introspectMs: t2 - t1,
    hashMs: t3 - t2,
    closeMs: t4 - t3,
    hash,
    flavor: handle.flavor,
    serverVersion: handle.serverVersion,
    model,
  };
}

async function runDump({ command, args, env }: DumpCommand): Promise<DumpRun> {
  const { stdout, wallMs } = await runClient(command, args, env);
  return {
    ms: wallMs,
    bytes: Buffer.byteLength(stdout),
    createTables: stdout.match(/^CREATE TABLE /gm)?.length ?? 0,
  };
}

function countModel(model: SchemaModel): SchemaCounts {
  const sum = (f: (t: SchemaModel['tables'][number]) => number) => model.tables.reduce((n, t) => n + f(t), 0);
  return {
    tables: model.tables.length,
    columns: sum((t) => t.columns.length),
    foreign_keys: sum((t) => t.foreign_keys.length),
    check_constraints: sum((t) => t.check_constraints.length),
    unique_constraints: sum((t) => t.unique_constraints.length),
    indexes: sum((t) => t.indexes.length),
  };
}

/** Every scripted change found once and nothing else, compared as `table | kind | object`. */
function checkDiff(diff: SchemaDiff, expected: ExpectedChange[], dialect: DialectName) {
  const schema = dialect === 'postgresql' ? 'public.' : '';
  const wanted = expected.map((change) => {
    const e = expectedFor(change, dialect);
    return `${schema}${e.table} | ${e.kind} | ${e.object}`;
  });
  const bare = (table: string) => table.slice(schema.length);
  const remaining = [
    ...diff.tables_added.map((t) => `${t.table} | table_added | ${bare(t.table)}`),
    ...diff.tables_removed.map((t) => `${t.table} | table_removed | ${bare(t.table)}`),
    ...diff.tables_modified.flatMap((t) => t.changes.map((c) => `${t.table} | ${c.kind} | ${c.object}`)),
  ];
  const missing = wanted.filter((entry) => {
    const at = remaining.indexOf(entry);
    if (at >= 0) remaining.splice(at, 1);
    return at < 0;
  });
  return { missing, unexpected: remaining };
}

async function benchEngine(
  engine: Engine,
  specs: TableSpec[],
  opts: Options,
): Promise<EngineResult | string> {
  const created = await engine.create();
  if (typeof created === 'string') return created;
  const database = created;
  const q = engine.dialect.quoteIdent;
  const label = engine.dialectName === 'postgresql' ? 'PostgreSQL' : 'MySQL/MariaDB';
  try {
    const ddl = engine.dialectName === 'postgresql' ? postgresDdl(specs, q) : mysqlDdl(specs, q);
    const statements = ddl.join('\n').split(/;\n/).length;
    log(`${label}: creating ${specs.length} tables in ${database.name} …`);
    const loadStarted = performance.now();
    await engine.execute(database.url, ddl);
    const loadMs = performance.now() - loadStarted;
    log(`${label}: created in ${(loadMs / 1000).toFixed(1)} s; warm-up …`);

    const warm = await runOurs(engine, database);
    const engineName =
      warm.flavor === 'mariadb' ? 'MariaDB' : warm.flavor === 'mysql' ? 'MySQL' : 'PostgreSQL';
    const command = engine.dump(database, warm.flavor);
    const tool = await toolVersion(command.command);
    let dumpError: string | null = typeof tool === 'string' ? null : `${command.command}: ${tool.message}`;
    if (dumpError === null) await runDump(command).catch((error: Error) => (dumpError = error.message));

    const ours: OursRun[] = [];
    const dump: DumpRun[] = [];
    for (let run = 0; run < opts.runs; run++) {
      // Alternating which side goes first spreads what one leaves in the caches over both.
      const sides = [
        async () => ours.push(await runOurs(engine, database)),
        async () => {
          if (dumpError !== null) return;
          await runDump(command).then(
            (result) => dump.push(result),
            (error: Error) => (dumpError = error.message),
          );
        },
      ];
      if (run % 2 === 1) sides.reverse();
      for (const side of sides) await side();
      const last = ours.at(-1)!;
      log(
        `${engineName} run ${run + 1}/${opts.runs}: ours ${Math.round(last.totalMs)} ms` +
          (dumpError === null ? `, ${command.command} ${Math.round(dump.at(-1)!.ms)} ms` : ''),
      );
    }

    const catalogRuns: [string, number][][] = [];
    for (let run = 0; run < CATALOG_RUNS; run++) {
      catalogRuns.push(await engine.catalogTimes(database.url, warm.flavor));
    }
    const catalog = catalogRuns[0]!.map(([name], i): [string, number] => [
      name,
      median(catalogRuns.map((times) => times[i]![1])),
    ]);

    const before = ours.at(-1)!.model;
    const changes = scriptChanges(specs, q);
    log(`${engineName}: applying ${changes.expected.length} scripted changes …`);
    const applyStarted = performance.now();
    await engine.execute(database.url, engine.dialectName === 'postgresql' ? changes.pg : changes.mysql);
    const applyMs = performance.now() - applyStarted;
    const after = (await runOurs(engine, database)).model;
    // The first call is timed apart: a drift check may well be the process's first diff.
    const times: number[] = [];
    let diff: SchemaDiff | undefined;
    for (let run = 0; run <= opts.diffRuns; run++) {
      const started = performance.now();
      diff = diffSchemas(before, after);
      times.push(performance.now() - started);
    }
    const checked = checkDiff(diff!, changes.expected, engine.dialectName);

    return {
      engine: engineName,
      server: warm.serverVersion,
      toolName: command.command,
      tool: typeof tool === 'string' ? tool : `${command.command}: not available`,
      loadMs,
      statements,
      expected: expectedCounts(specs, engine.dialectName),
      found: countModel(before),
      hashes: new Set([warm, ...ours].map((run) => run.hash)),
      canonicalBytes: Buffer.byteLength(canonicalJson(before)),
      ours,
      dump,
      dumpError,
      catalog,
      diff: {
        scripted: changes.expected.length,
        applyMs,
        ...checked,
        diff: diff!,
        firstMs: times[0]!,
        times: times.slice(1),
      },
    };
  } finally {
    await database.drop();
    log(`${label}: dropped ${database.name}`);
  }
}

/** Runs the schema bench; false when a target is missed or a check fails. */
export async function runSchemaBench(): Promise<boolean> {
  const opts = options();
  const loadBefore = os.loadavg();
  const specs = generateSchema(opts.tables);
  const results: EngineResult[] = [];
  const notes: string[] = [];
  let failed = false;
  for (const engine of opts.engines) {
    const outcome = await benchEngine(engine, specs, opts).catch((error: unknown) => {
      // One engine's failure is reported; the other engine still runs.
      console.error(error);
      failed = true;
      return `FAIL: ${engine.dialectName}: ${error instanceof Error ? error.message : String(error)}`;
    });
    if (typeof outcome === 'string') {
      console.error(outcome);
      notes.push(outcome);
    } else results.push(outcome);
  }
  const markdown = report(results, notes, { ...opts, catalogRuns: CATALOG_RUNS }, loadBefore);
  process.stdout.write(`\n${markdown}`);
  await updateResults('schema', markdown);
  return !failed && results.every((r) => introspectionVerdict(r) === 'ok' && diffVerdict(r) === 'ok');
}

if (import.meta.main) {
  runSchemaBench().then(
    (ok) => {
      if (!ok) process.exitCode = 1;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}

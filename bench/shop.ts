// The realistic-data bench (`npm run bench`, or `BENCH_ONLY=shop npm run bench`; also
// `node bench/shop.ts`): every data operation on a shop-like schema (bench/shop-schema.ts:
// customers → orders → order_items, 1 : 3 : 6, 1,000,000 rows in all, names, e-mails, phones and
// addresses of twelve locales, multibyte text, NULLs, a JSON column, two foreign keys), each beside
// its physical reference measured in the same run:
//   - Bridge PG→PG, 3 tables, replace vs `psql \copy … to stdout | psql \copy … from stdin` per table,
//     the target's foreign keys and secondary indexes dropped before and made after. Goal ≤ 1.0×.
//   - Bridge MariaDB→PG, create_tables vs pgloader into an empty database.           Goal ≤ 0.5×,
//     and the service's whole RSS below pgloader's peak.
//   - Seed of the 3 tables, every generator inferred vs `\copy` of the same rows written beforehand
//     into empty tables, the indexes and keys made after.                              Goal ≤ 1.67×.
//   - Bridge PG→PG of customers with 3 anonymize rules (a deterministic `fake` e-mail, a `mask` of the
//     phone keeping its last 4, a `hash` of the last name) vs the pipe of that table.   Goal ≤ 2.5×.
//   - Anonymize in place with the same rules vs `UPDATE customers SET … = md5(…)`.    Goal ≤ 2.0×.
//   - Memory of each: RSS growth over idle of every process of the service.            Goal < 150 MB;
//     also a PG→PG bridge and a seed of BENCH_SHOP_MEMORY_ROWS (default 5,000,000) rows.
// The service runs as real processes, one API and one worker on a PostgreSQL store
// (bench/shop-service.ts); ours is timed from the POST to the run seen `succeeded` by a client polling
// every 100 ms (queue pick-up included), its memory sampled every 50 ms over both processes' trees
// (bench/shop-memory.ts). Results are checked (bench/shop-checks.ts): row counts and row digests
// equal to the source's, foreign keys validated without orphans, anonymized values as the rules say.
// A missed goal or a wrong result is reported as such and the exit code is 1; the report is always
// written (bench/results.md, section `shop`).
//
// Environment: BENCH_SHOP_ROWS (default 1000000), BENCH_SHOP_REPEATS (default 3; medians),
// BENCH_SHOP_MEMORY_ROWS (default 5000000), BENCH_SHOP_WORK (some of bridgePgToPg, bridgeMariadbToPg,
// seed, bridgeAnonymized, anonymizeInPlace, atScale; all by default), TEST_PG_URL, TEST_MYSQL_URL.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestPgDatabase, type TestPgDatabase } from '../test/support/databases.ts';
import { createTestMysqlDatabase } from '../test/support/mysql.ts';
import { positiveNumber } from './env.ts';
import { failureReport, publishReport } from './results.ts';
import {
  anonymizedAsRuled,
  digestsDiffer,
  mysqlCounts,
  mysqlCustomersText,
  pgCounts,
  pgCustomersText,
  pgForeignKeysValid,
  pgShopDigests,
  seededCustomers,
} from './shop-checks.ts';
import {
  copyPipe,
  mariadb,
  mariadbLoadFiles,
  pgDumpFiles,
  pgLoadFiles,
  pgloader,
  pgloaderInstalled,
  psql,
} from './shop-clients.ts';
import { type Outcome, shopReport, workerAfter } from './shop-report.ts';
import { writeShopRows } from './shop-rows.ts';
import {
  MYSQL_SHOP_KEYS,
  MYSQL_SHOP_TABLES,
  PG_CUSTOMERS_INDEX,
  PG_CUSTOMERS_ONLY,
  PG_SHOP_DROP_INDEXES,
  PG_SHOP_DROP_KEYS,
  PG_SHOP_INDEXES,
  PG_SHOP_KEYS,
  PG_SHOP_SCHEMA,
  PG_SHOP_TABLES,
  SHOP_TABLES,
  type ShopTable,
  shopSizes,
} from './shop-schema.ts';
import { type ShopService, startShopService, type TimedRun } from './shop-service.ts';

const log = (message: string) => console.error(`[shop] ${message}`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

const RULES = [
  { table: 'customers', column: 'email', transformer: 'fake', options: { kind: 'email' } },
  { table: 'customers', column: 'phone', transformer: 'mask', options: { keep_end: 4 } },
  { table: 'customers', column: 'last_name', transformer: 'hash', options: { length: 32 } },
];
const MD5_UPDATE = 'update customers set email = md5(email), phone = md5(phone), last_name = md5(last_name)';
const ALL_TABLES = SHOP_TABLES.join(', ');

interface Context {
  service: ShopService;
  repeats: number;
  rows: number;
  files: Record<ShopTable, string>;
  dir: string;
  /** Databases made for the run, dropped at its end. */
  made: { drop(): Promise<void> }[];
  pgSource: TestPgDatabase;
  pgSourceId: string;
}

async function pgDatabase(c: Pick<Context, 'made'>, sql?: string): Promise<TestPgDatabase> {
  const database = await createTestPgDatabase();
  if (!database) throw new Error('PostgreSQL is not reachable (TEST_PG_URL)');
  c.made.push(database);
  if (sql) await psql(database.url, sql);
  return database;
}

/** A PostgreSQL database holding the shop's rows from `files`, indexes and keys made after, analyzed. */
async function pgShop(c: Pick<Context, 'made'>, files: Record<ShopTable, string>): Promise<TestPgDatabase> {
  const database = await pgDatabase(c, PG_SHOP_TABLES);
  await pgLoadFiles(database.url, files);
  await psql(database.url, PG_SHOP_INDEXES + PG_SHOP_KEYS);
  await psql(database.url, 'analyze');
  return database;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

/** `repeats` times the reference then ours: the medians, every measure, the highest RSS of ours. */
async function sideBySide(
  repeats: number,
  label: string,
  reference: (i: number) => Promise<number>,
  ours: (i: number) => Promise<TimedRun>,
): Promise<Pick<Outcome, 'referenceMs' | 'ours' | 'referenceAll'>> {
  const references: number[] = [];
  const runs: TimedRun[] = [];
  for (let i = 0; i < repeats; i++) {
    log(`${label}: repeat ${i + 1} of ${repeats}, reference`);
    references.push(await reference(i));
    log(`${label}: repeat ${i + 1} of ${repeats}, ours (reference ${fmt(references.at(-1)!)} ms)`);
    runs.push(await ours(i));
    const run = runs.at(-1)!;
    log(`${label}: ours ${fmt(run.wallMs)} ms; worker after: ${workerAfter(run.workerAfter)}`);
  }
  const measured = references.filter(Number.isFinite);
  return {
    referenceMs: measured.length > 0 ? median(measured) : Number.NaN,
    referenceAll: references,
    ours: runs,
  };
}

async function bridgePgToPg(c: Context): Promise<Outcome> {
  const target = await pgDatabase(c, PG_SHOP_SCHEMA);
  const pipeInto = await pgDatabase(c, PG_SHOP_SCHEMA);
  const targetId = await c.service.connect(target.url, 'pg target');
  const measured = await sideBySide(
    c.repeats,
    'PG→PG',
    async () => {
      const started = performance.now();
      await psql(pipeInto.url, `${PG_SHOP_DROP_KEYS} ${PG_SHOP_DROP_INDEXES} truncate ${ALL_TABLES};`);
      await copyPipe(c.pgSource.url, pipeInto.url, SHOP_TABLES);
      await psql(pipeInto.url, PG_SHOP_INDEXES + PG_SHOP_KEYS);
      return performance.now() - started;
    },
    () =>
      c.service.timedRun(`/projects/${c.service.projectId}/bridge/run`, {
        source_connection_id: c.pgSourceId,
        target_connection_id: targetId,
        mode: 'replace',
      }),
  );
  const source = await pgShopDigests(c.pgSource.url);
  const problems = [
    ...digestsDiffer(source, await pgShopDigests(target.url)),
    ...(await pgForeignKeysValid(target.url)),
  ];
  return {
    work: 'Bridge PG→PG, 3 tables, replace',
    reference:
      '`psql \\copy … to stdout | psql \\copy … from stdin` per table, FKs and secondary indexes dropped and made again after',
    goal: { ratio: 1.0 },
    ...measured,
    problems,
    checked: 'row counts and row digests equal to the source, FKs validated, no orphan',
  };
}

async function bridgeMariadbToPg(c: Context): Promise<Outcome> {
  const source = await createTestMysqlDatabase();
  if (!source) throw new Error('MariaDB is not reachable (TEST_MYSQL_URL)');
  c.made.push(source);
  await mariadb(source.url, MYSQL_SHOP_TABLES);
  await mariadbLoadFiles(source.url, c.files);
  await mariadb(source.url, `${MYSQL_SHOP_KEYS} analyze table ${ALL_TABLES};`);
  const target = await pgDatabase(c);
  const [sourceId, targetId] = [
    await c.service.connect(source.url, 'mariadb source'),
    await c.service.connect(target.url, 'pg empty'),
  ];
  const withPgloader = pgloaderInstalled();
  const pgloaderRss: number[] = [];
  let pgloaderFailure: string | undefined;
  const measured = await sideBySide(
    c.repeats,
    'MariaDB→PG',
    async () => {
      if (!withPgloader) return Number.NaN;
      // pgloader names its schema after the MariaDB database: an empty database each time.
      const into = await pgDatabase(c);
      try {
        const { ms, rss } = await pgloader(source.url, into.url);
        pgloaderRss.push(rss);
        return ms;
      } catch (error) {
        // A reference that fails is reported as missing, and the row as missed, not the bench broken.
        pgloaderFailure = error instanceof Error ? error.message.slice(0, 300) : String(error);
        return Number.NaN;
      } finally {
        await into.drop();
      }
    },
    async () => {
      await psql(target.url, `drop table if exists ${ALL_TABLES} cascade`);
      return c.service.timedRun(`/projects/${c.service.projectId}/bridge/run`, {
        source_connection_id: sourceId,
        target_connection_id: targetId,
        create_tables: true,
      });
    },
  );
  const counts = await mysqlCounts(source.url);
  const copied = await pgCounts(target.url);
  const problems = SHOP_TABLES.filter((t) => counts[t] !== copied[t]).map(
    (t) => `${t}: ${copied[t]} rows, expected ${counts[t]}`,
  );
  const [clear, got] = [await mysqlCustomersText(source.url), await pgCustomersText(target.url)];
  if (clear.md5 !== got.md5) problems.push("customers' text differs from MariaDB's (digest)");
  problems.push(...(await pgForeignKeysValid(target.url)));
  return {
    work: 'Bridge MariaDB→PG, create_tables',
    reference: !withPgloader
      ? 'pgloader: reference missing (not installed: `apt-get install pgloader`)'
      : pgloaderFailure
        ? `pgloader: reference missing (it failed: ${pgloaderFailure})`
        : 'pgloader into an empty database',
    goal: { ratio: 0.5, belowRss: pgloaderRss.length > 0 ? Math.max(...pgloaderRss) : undefined },
    ...measured,
    problems,
    checked: "row counts equal, customers' text digest equal to MariaDB's, FKs validated, no orphan",
  };
}

async function seed(c: Context): Promise<Outcome> {
  const into = await pgDatabase(c, PG_SHOP_SCHEMA);
  const id = await c.service.connect(into.url, 'seed target');
  const sizes = shopSizes(c.rows);
  const scenario = await c.service.call('POST', '/seed/scenarios', {
    project_id: c.service.projectId,
    connection_id: id,
    name: 'shop',
    seed: 36,
    definition: { tables: SHOP_TABLES.map((table) => ({ table, rows: sizes[table] })) },
  });
  const copyInto = await pgDatabase(c);
  const ours = async () => {
    await psql(into.url, `truncate ${ALL_TABLES}`);
    return c.service.timedRun(`/seed/scenarios/${String(scenario.id)}/run`);
  };
  // The reference loads the rows ours wrote: a first seed makes them, not measured.
  log('seed: a first run writes the rows the reference loads');
  await ours();
  const files = await pgDumpFiles(into.url, c.dir);
  const measured = await sideBySide(
    c.repeats,
    'seed',
    async () => {
      await psql(copyInto.url, `drop table if exists ${ALL_TABLES} cascade; ${PG_SHOP_TABLES}`);
      const started = performance.now();
      await pgLoadFiles(copyInto.url, files);
      await psql(copyInto.url, PG_SHOP_INDEXES + PG_SHOP_KEYS);
      return performance.now() - started;
    },
    ours,
  );
  const counts = await pgCounts(into.url);
  const problems = SHOP_TABLES.filter((t) => counts[t] !== sizes[t]).map(
    (t) => `${t}: ${counts[t]} rows, expected ${sizes[t]}`,
  );
  problems.push(...(await pgForeignKeysValid(into.url)));
  const looks = await seededCustomers(into.url);
  return {
    work: 'Seed, 3 tables, generators inferred',
    reference:
      '`psql \\copy … from` of the same rows written beforehand, into empty tables, indexes and keys made after',
    goal: { ratio: 1.67 },
    ...measured,
    problems,
    checked: `row counts as asked, FKs validated, no orphan; how the customers look (not judged): e-mails shaped like one ${pct(looks.emails)}, holding the row's last name ${pct(looks.namedEmails)}, country an upper-case 2-letter code ${pct(looks.countries)}, distinct first names among the first 1,000 customers ${pct(looks.distinctFirstNames)}`,
  };
}

async function anonymizeConfig(c: Context, connectionId: string, name: string): Promise<string> {
  const config = await c.service.call('POST', '/anonymize/configs', {
    project_id: c.service.projectId,
    connection_id: connectionId,
    name,
    rules: RULES,
  });
  return String(config.id);
}

async function bridgeAnonymized(c: Context): Promise<Outcome> {
  const target = await pgDatabase(c, PG_CUSTOMERS_ONLY);
  const pipeInto = await pgDatabase(c, PG_CUSTOMERS_ONLY);
  const targetId = await c.service.connect(target.url, 'anonymized target');
  const configId = await anonymizeConfig(c, c.pgSourceId, 'shop bridge');
  const measured = await sideBySide(
    c.repeats,
    'bridge with 3 rules',
    async () => {
      const started = performance.now();
      await psql(pipeInto.url, 'drop index if exists customers_email_idx; truncate customers;');
      await copyPipe(c.pgSource.url, pipeInto.url, ['customers']);
      await psql(pipeInto.url, PG_CUSTOMERS_INDEX);
      return performance.now() - started;
    },
    () =>
      c.service.timedRun(`/projects/${c.service.projectId}/bridge/run`, {
        source_connection_id: c.pgSourceId,
        target_connection_id: targetId,
        tables: ['public.customers'],
        anonymize_config_id: configId,
      }),
  );
  return {
    work: 'Bridge PG→PG of customers with 3 anonymize rules',
    reference: 'the pipe of that table, its index made after',
    goal: { ratio: 2.5 },
    ...measured,
    problems: await anonymizedAsRuled(target.url, c.pgSource.url),
    checked:
      'e-mails shaped like one and changed, phones masked keeping their last 4, last names hashed, other columns equal to the source',
  };
}

async function anonymizeInPlace(c: Context): Promise<Outcome> {
  const ours = await pgDatabase(c, PG_SHOP_SCHEMA);
  const reference = await pgDatabase(c, PG_SHOP_SCHEMA);
  const configId = await anonymizeConfig(c, await c.service.connect(ours.url, 'in place'), 'shop in place');
  const refill = async (url: string) => {
    await psql(url, `${PG_SHOP_DROP_KEYS} ${PG_SHOP_DROP_INDEXES} truncate ${ALL_TABLES};`);
    await pgLoadFiles(url, c.files);
    await psql(url, PG_SHOP_INDEXES + PG_SHOP_KEYS);
    await psql(url, 'vacuum analyze');
  };
  const measured = await sideBySide(
    c.repeats,
    'anonymize in place',
    async () => {
      await refill(reference.url);
      return psql(reference.url, MD5_UPDATE);
    },
    async () => {
      await refill(ours.url);
      return c.service.timedRun(`/anonymize/configs/${configId}/run`);
    },
  );
  const problems = await anonymizedAsRuled(ours.url, c.pgSource.url);
  problems.push(...(await pgForeignKeysValid(ours.url)));
  return {
    work: 'Anonymize in place, 3 rules',
    reference:
      'server-side `UPDATE customers SET email = md5(email), phone = md5(phone), last_name = md5(last_name)`',
    goal: { ratio: 2.0 },
    ...measured,
    problems,
    checked: 'as the bridge with the rules, and FKs still validated',
  };
}

/** A PG→PG bridge and a seed of `rows` rows: their memory must not grow with the row count. */
async function atScale(c: Context, rows: number): Promise<Outcome[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dbops-shop-big-'));
  try {
    log(`memory: writing and loading ${fmt(rows)} rows`);
    const files = await writeShopRows(dir, rows);
    const source = await pgShop(c, files);
    const target = await pgDatabase(c, PG_SHOP_SCHEMA);
    const sourceId = await c.service.connect(source.url, 'big source');
    await rm(dir, { recursive: true, force: true });
    log(`memory: bridge PG→PG of ${fmt(rows)} rows`);
    const bridge = await c.service.timedRun(`/projects/${c.service.projectId}/bridge/run`, {
      source_connection_id: sourceId,
      target_connection_id: await c.service.connect(target.url, 'big target'),
    });
    const bridgeProblems = digestsDiffer(await pgShopDigests(source.url), await pgShopDigests(target.url));
    const seedInto = await pgDatabase(c, PG_SHOP_SCHEMA);
    const sizes = shopSizes(rows);
    const scenario = await c.service.call('POST', '/seed/scenarios', {
      project_id: c.service.projectId,
      connection_id: await c.service.connect(seedInto.url, 'big seed'),
      name: 'shop big',
      seed: 36,
      definition: { tables: SHOP_TABLES.map((table) => ({ table, rows: sizes[table] })) },
    });
    log(`memory: seed of ${fmt(rows)} rows`);
    const seeded = await c.service.timedRun(`/seed/scenarios/${String(scenario.id)}/run`);
    const counts = await pgCounts(seedInto.url);
    const seedProblems = SHOP_TABLES.filter((t) => counts[t] !== sizes[t]).map(
      (t) => `${t}: ${counts[t]} rows, expected ${sizes[t]}`,
    );
    const at = `${fmt(rows)} rows`;
    return [
      {
        work: `Bridge PG→PG, 3 tables, replace, ${at}`,
        ours: [bridge],
        problems: bridgeProblems,
        checked: 'row counts and digests',
      },
      { work: `Seed, 3 tables, ${at}`, ours: [seeded], problems: seedProblems, checked: 'row counts' },
    ].map((o) => ({ ...o, reference: '–', goal: {}, referenceMs: Number.NaN, referenceAll: [] }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** BENCH_SHOP_WORK: a comma-separated list of the rows to run (their function names), all by default. */
function chosen(work: string): boolean {
  const only = process.env.BENCH_SHOP_WORK?.split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  return !only?.length || only.includes(work);
}

export async function runShopBench(): Promise<boolean> {
  const rows = Math.round(positiveNumber('BENCH_SHOP_ROWS', 1_000_000));
  const repeats = Math.round(positiveNumber('BENCH_SHOP_REPEATS', 3));
  const memoryRows = Math.round(positiveNumber('BENCH_SHOP_MEMORY_ROWS', 5_000_000));
  const loadBefore = os.loadavg();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dbops-shop-'));
  const made: { drop(): Promise<void> }[] = [];
  let service: ShopService | undefined;
  let report: string[];
  let ok = false;
  try {
    log(`writing ${fmt(rows)} rows`);
    const files = await writeShopRows(dir, rows);
    const store = await pgDatabase({ made });
    const pgSource = await pgShop({ made }, files);
    log('starting the service (an API and a worker)');
    service = await startShopService(store);
    const c: Context = {
      service,
      repeats,
      rows,
      files,
      dir,
      made,
      pgSource,
      pgSourceId: await service.connect(pgSource.url, 'pg source'),
    };
    const outcomes: Outcome[] = [];
    for (const row of [bridgePgToPg, bridgeMariadbToPg, seed, bridgeAnonymized, anonymizeInPlace]) {
      if (chosen(row.name)) outcomes.push(await row(c).catch((error: unknown) => failedRow(row.name, error)));
    }
    if (chosen(atScale.name))
      outcomes.push(
        ...(await atScale(c, memoryRows).catch((error: unknown) => [failedRow('at scale', error)])),
      );
    const built = shopReport({
      outcomes,
      rows,
      repeats,
      idle: service.idle,
      workerIdle: service.workerIdle,
      loadBefore,
      errors: service.errors(),
    });
    report = built.lines;
    ok = built.ok;
  } catch (error) {
    report = failureReport('Realistic data: the shop schema', error, log);
  } finally {
    await service?.stop();
    for (const database of made) await database.drop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
  await publishReport('shop', report);
  return ok;
}

/** A row whose work threw: reported as failed with its error, the others still run. */
function failedRow(work: string, error: unknown): Outcome {
  log(String(error instanceof Error ? error.stack : error));
  return {
    work,
    reference: '–',
    goal: {},
    referenceMs: Number.NaN,
    referenceAll: [],
    ours: [],
    problems: [`failed: ${error instanceof Error ? error.message : String(error)}`],
    checked: '',
  };
}

if (import.meta.filename === process.argv[1]) process.exitCode = (await runShopBench()) ? 0 : 1;

// The seed bench (`npm run bench`, or BENCH_ONLY=seed; also `node bench/seed.ts`):
//   - Seeding 1,000,000 rows in all (customers 10 % : orders 30 % : items 60 %) with inferred
//     generators, a self-reference (customers.referred_by) and a two-table cycle through a
//     nullable key (customers.favorite_order_id → orders → customers), through the real service
//     (a seed_run worked in this process), on PostgreSQL and on MariaDB, side by side with the
//     physical limit measured in the same run: the same rows, pre-generated (dumped from the seeded
//     PostgreSQL database into files), loaded into empty tables of the same shape with the
//     engines' own clients (`psql \copy … from` / `LOAD DATA LOCAL INFILE`), the foreign keys added
//     (validated) after, as ours does. Target: ours ≥ 0.6× the limit's rows/s on both engines,
//     cycle-closing UPDATEs included in ours.
//   - Each generator kind alone: values per second on one core (this process), 200,000 values each.
// Ours is the run's own time (started_at → finished_at in the store). A missed target is reported as
// missed and the exit code is 1.
//
// Environment: BENCH_SEED_ROWS (default 1000000), TEST_PG_URL, TEST_MYSQL_URL.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { columnShape } from '../src/engine/anonymize/column-type.ts';
import type { ColumnModel } from '../src/engine/schema/model.ts';
import type { SeedColumn } from '../src/engine/seed/column-kind.ts';
import { FAKE_VALUES, type Resolved } from '../src/engine/seed/resolved.ts';
import { compileValue } from '../src/engine/seed/values.ts';
import type { Client, TestApp } from '../test/support/app.ts';
import { connectionBody } from '../test/support/connections.ts';
import { createTestPgDatabase } from '../test/support/databases.ts';
import { createTestMysqlDatabase } from '../test/support/mysql.ts';
import { makeColumn } from '../test/support/schema-models.ts';
import { createTestAppWithWorker } from '../test/support/worker-runs.ts';
import { positiveNumber } from './env.ts';
import { updateResults } from './results.ts';

const API = '/api/v1';
const log = (message: string) => console.error(`[seed] ${message}`);
const run = promisify(execFile);
const TARGET = 0.6;

const PG_SCHEMA = `
  create table customers (id integer primary key, email varchar(120) not null unique, first_name varchar(40) not null,
    last_name varchar(40) not null, city varchar(60), created_at timestamp not null, referred_by integer,
    favorite_order_id bigint);
  create table orders (id bigint primary key, customer_id integer not null, placed_at timestamp not null,
    total numeric(10,2) not null, status varchar(12) not null check (status in ('new', 'paid', 'shipped')));
  create table items (id bigint primary key, order_id bigint not null, sku varchar(12) not null,
    quantity integer not null check (quantity > 0), price numeric(8,2) not null);
`;
const PG_KEYS = `
  alter table customers add constraint customers_referrer_fk foreign key (referred_by) references customers (id);
  alter table orders add constraint orders_customer_fk foreign key (customer_id) references customers (id);
  alter table customers add constraint customers_favorite_fk foreign key (favorite_order_id) references orders (id);
  alter table items add constraint items_order_fk foreign key (order_id) references orders (id);
`;
const MYSQL_SCHEMA = `
  create table customers (id int primary key, email varchar(120) not null unique, first_name varchar(40) not null,
    last_name varchar(40) not null, city varchar(60), created_at datetime not null, referred_by int,
    favorite_order_id bigint);
  create table orders (id bigint primary key, customer_id int not null, placed_at datetime not null,
    total decimal(10,2) not null, status varchar(12) not null check (status in ('new', 'paid', 'shipped')));
  create table items (id bigint primary key, order_id bigint not null, sku varchar(12) not null,
    quantity int not null check (quantity > 0), price decimal(8,2) not null);
`;
const MYSQL_KEYS = PG_KEYS;
const TABLES = ['customers', 'orders', 'items'] as const;

async function psql(url: string, sql: string): Promise<void> {
  await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { maxBuffer: 1 << 26 });
}

function mariadbArgs(url: string): string[] {
  const u = new URL(url);
  return ['-h', u.hostname, '-P', u.port || '3306', '-u', u.username, u.pathname.slice(1)];
}

async function mariadb(url: string, sql: string): Promise<void> {
  await run('mariadb', [...mariadbArgs(url), '-e', sql], { maxBuffer: 1 << 26 });
}

async function timed(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}\n${stderr}`)),
    );
  });
  return performance.now() - started;
}

async function seedRun(t: TestApp, owner: Client, scenarioId: string): Promise<{ ms: number; rows: number }> {
  const post = await owner.post(`${API}/seed/scenarios/${scenarioId}/run`);
  if (post.status !== 202) throw new Error(`seed run refused: ${post.status} ${JSON.stringify(post.body)}`);
  for (;;) {
    const got = await owner.get(`${API}/runs/${post.body.id}`);
    if (got.body.status === 'succeeded') {
      const record = await t.store.db
        .selectFrom('runs')
        .select(['started_at', 'finished_at'])
        .where('id', '=', post.body.id)
        .executeTakeFirstOrThrow();
      return {
        ms: record.finished_at!.getTime() - record.started_at!.getTime(),
        rows: got.body.result.rows_total,
      };
    }
    if (got.body.status === 'failed' || got.body.status === 'cancelled')
      throw new Error(`seed run ${got.body.status}: ${got.body.error}`);
    await sleep(100);
  }
}

/** Values per second of each generator kind alone, on this process's one core. */
function generatorThroughput(values: number): { kind: string; perSecond: number }[] {
  const col = (name: string, type: string): ColumnModel => makeColumn(name, { type, nullable: false });

  const seedColumn = (type: string): SeedColumn => ({
    column: col('c', type),
    family: columnShape(type).family,
    shape: columnShape(type),
    enumValues: null,
    limits: {},
  });
  const cases: [string, string, Resolved][] = [
    ...FAKE_VALUES.map((fake): [string, string, Resolved] => [
      `inferred ${fake}`,
      fake === 'boolean' ? 'boolean' : 'varchar(120)',
      { kind: 'fake', fake },
    ]),
    ['sequence', 'bigint', { kind: 'sequence', start: 1, step: 1 }],
    ['int', 'integer', { kind: 'int', min: 1, max: 1000 }],
    ['float', 'numeric(10,2)', { kind: 'float', min: 0, max: 1000, precision: 2 }],
    ['timestamp', 'timestamp', { kind: 'timestamp', from: Date.UTC(2020, 0, 1), to: Date.UTC(2026, 0, 1) }],
    ['date', 'date', { kind: 'date', from: Date.UTC(2020, 0, 1), to: Date.UTC(2026, 0, 1) }],
    ['choice', 'varchar(10)', { kind: 'choice', values: ['a', 'b', 'c'], weights: [1, 2, 3] }],
    ['faker person.firstName', 'varchar(60)', { kind: 'faker', method: 'person.firstName', args: [] }],
    ['faker internet.email', 'varchar(120)', { kind: 'faker', method: 'internet.email', args: [] }],
  ];
  return cases.map(([kind, type, generator]) => {
    const { fn } = compileValue(
      seedColumn(type),
      generator,
      false,
      { seed: 1, table: 't', locale: 'en', rows: values },
      () => -1,
    );
    const row: (string | null)[] = [];
    const started = performance.now();
    let sink = 0;
    for (let i = 0; i < values; i++) sink += (fn(i, 0, row) ?? '').length;
    const ms = performance.now() - started;
    if (sink < 0) console.log(sink);
    return { kind, perSecond: values / (ms / 1000) };
  });
}

const fmt = (n: number) => Math.round(n).toLocaleString('en');

export async function runSeedBench(): Promise<boolean> {
  const rows = Math.round(positiveNumber('BENCH_SEED_ROWS', 1_000_000));
  const customers = Math.round(rows / 10);
  const orders = customers * 3;
  const items = rows - customers - orders;
  const definition = {
    tables: [
      { table: 'customers', rows: customers },
      { table: 'orders', rows: orders },
      { table: 'items', rows: items },
    ],
  };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dbops-seed-bench-'));
  const t = await createTestAppWithWorker();
  const dropped: { drop(): Promise<void> }[] = [];
  const lines: string[] = [];
  let ok = true;
  try {
    const { owner } = await t.createOrg('Seed bench');
    const projectId = (await owner.post(`${API}/projects`, { name: 'Seed bench' })).body.id as string;
    const connect = async (url: string) => {
      const answer = await owner.post(`${API}/connections`, connectionBody(projectId, url));
      if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
      return answer.body.id as string;
    };
    const scenario = async (connectionId: string) => {
      const answer = await owner.post(`${API}/seed/scenarios`, {
        project_id: projectId,
        connection_id: connectionId,
        name: `bench-${connectionId}`,
        definition,
        seed: 1,
      });
      if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
      return answer.body.id as string;
    };
    const results: { engine: string; ours: { ms: number; rows: number }; limitMs: number }[] = [];

    // PostgreSQL: ours, then the same rows dumped to files and loaded by psql.
    const pgOurs = (await createTestPgDatabase())!;
    const pgLimit = (await createTestPgDatabase())!;
    dropped.push(pgOurs, pgLimit);
    await psql(pgOurs.url, PG_SCHEMA + PG_KEYS);
    log(`PostgreSQL: seeding ${fmt(rows)} rows`);
    const pgRun = await seedRun(t, owner, await scenario(await connect(pgOurs.url)));
    for (const table of TABLES)
      await psql(
        pgOurs.url,
        `\\copy (select * from ${table} order by id) to '${path.join(dir, `${table}.tsv`)}'`,
      );
    await psql(pgLimit.url, PG_SCHEMA);
    log('PostgreSQL: the limit (psql \\copy of the same rows, keys added after)');
    let pgLimitMs = 0;
    for (const table of TABLES)
      pgLimitMs += await timed('psql', [
        '-X',
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
        '-d',
        pgLimit.url,
        '-c',
        `\\copy ${table} from '${path.join(dir, `${table}.tsv`)}'`,
      ]);
    pgLimitMs += await timed('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', pgLimit.url, '-c', PG_KEYS]);
    results.push({ engine: 'PostgreSQL', ours: pgRun, limitMs: pgLimitMs });

    // MariaDB: ours, then the same files through LOAD DATA LOCAL INFILE.
    const myOurs = await createTestMysqlDatabase();
    const myLimit = await createTestMysqlDatabase();
    if (myOurs && myLimit) {
      dropped.push(myOurs, myLimit);
      await mariadb(myOurs.url, MYSQL_SCHEMA + MYSQL_KEYS);
      log(`MariaDB: seeding ${fmt(rows)} rows`);
      const myRun = await seedRun(t, owner, await scenario(await connect(myOurs.url)));
      await mariadb(myLimit.url, MYSQL_SCHEMA);
      log('MariaDB: the limit (LOAD DATA LOCAL INFILE of the same rows, keys added after)');
      const load = TABLES.map(
        (table) => `LOAD DATA LOCAL INFILE '${path.join(dir, `${table}.tsv`)}' INTO TABLE ${table};`,
      ).join(' ');
      let myLimitMs = await timed('mariadb', [
        '--local-infile=1',
        ...mariadbArgs(myLimit.url),
        '-e',
        `SET foreign_key_checks = 0; ${load}`,
      ]);
      myLimitMs += await timed('mariadb', [...mariadbArgs(myLimit.url), '-e', MYSQL_KEYS]);
      results.push({ engine: 'MariaDB', ours: myRun, limitMs: myLimitMs });
    } else log('MariaDB is not reachable: skipped');

    log('generator throughput');
    const throughput = generatorThroughput(200_000);

    lines.push(
      '# Seeding: 1,000,000 rows with inferred generators vs loading the same rows pre-generated',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()}); ${os.cpus().length} cores; the database servers run on the same machine`,
      `- Schema: customers ${fmt(customers)} (self-reference, and a cycle with orders through a nullable key) → orders ${fmt(orders)} → items ${fmt(items)}; every column inferred`,
      '- Ours: a `seed_run` through the service (run started → finished): generation, COPY / LOAD DATA LOCAL INFILE, the cycle-closing UPDATEs, foreign keys checked, all in one transaction',
      '- Limit: the same rows dumped to files beforehand, loaded by `psql \\copy` / `mariadb` `LOAD DATA LOCAL INFILE` into empty tables, the foreign keys added (validated) after',
      `- Target: ours ≥ ${TARGET}× the limit's rows/s`,
      `- Load average before the report: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')}`,
      '',
      '| Engine | Ours | Ours rows/s | Limit | Limit rows/s | Ours / limit | Result |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    );
    for (const r of results) {
      const ratio = r.limitMs / r.ours.ms;
      const pass = ratio >= TARGET;
      ok &&= pass;
      lines.push(
        `| ${r.engine} | ${(r.ours.ms / 1000).toFixed(1)} s | ${fmt(r.ours.rows / (r.ours.ms / 1000))} | ${(r.limitMs / 1000).toFixed(1)} s | ${fmt(rows / (r.limitMs / 1000))} | ${ratio.toFixed(2)}× | ${pass ? 'pass' : `MISS: below ${TARGET}×`} |`,
      );
    }
    lines.push(
      '',
      '## Generators alone (one core, 200,000 values each)',
      '',
      '| Generator | values/s |',
      '| --- | ---: |',
    );
    for (const g of throughput) lines.push(`| ${g.kind} | ${fmt(g.perSecond)} |`);
    const markdown = lines.join('\n');
    console.log(markdown);
    await updateResults('seed', markdown);
    return ok;
  } finally {
    await t.close();
    for (const d of dropped) await d.drop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ok = await runSeedBench();
  process.exit(ok ? 0 : 1);
}

// The two servers of the schema bench (bench/schema.ts), behind one shape: a throw-away database on
// the test server (TEST_PG_URL, TEST_MYSQL_URL; 127.0.0.1 only), a way to run the generated DDL on
// it, the command line of the engine's own dump tool, and the dialect's catalog queries one by one
// (to tell the server's share of introspection from ours).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { dialects, type TargetConfig, type TargetDialect } from '../src/dialects/index.ts';
import * as myCatalog from '../src/dialects/mysql/mysql.catalog.ts';
import * as pgCatalog from '../src/dialects/postgres/postgres.catalog.ts';
import { UNMANAGED_SQL } from '../src/dialects/postgres/postgres.catalog-unmanaged.ts';
import type { DialectName, Flavor } from '../src/engine/schema/model.ts';
import { createTestPgDatabase, redactUrl, testPgUrl } from '../test/support/databases.ts';
import { createTestMysqlDatabase, testMysqlUrl } from '../test/support/mysql.ts';
import { targetConfig } from '../test/support/targets.ts';

const run = promisify(execFile);

export interface BenchDatabase {
  name: string;
  url: string;
  config: TargetConfig;
  drop(): Promise<void>;
}

export interface DumpCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

export interface Engine {
  dialectName: DialectName;
  dialect: TargetDialect;
  /** Why this engine is skipped (no server, not on 127.0.0.1), or a new empty database. */
  create(): Promise<BenchDatabase | string>;
  /** Runs batches of statements (several statements per batch) in order. */
  execute(url: string, batches: string[]): Promise<void>;
  /** The dump tool's binary for the server's flavour. */
  dumpTool(flavor: Flavor): string;
  dump(database: BenchDatabase, flavor: Flavor): DumpCommand;
  /** The dialect's catalog queries, each timed on its own (ms), in the dialect's order. */
  catalogTimes(url: string, flavor: Flavor): Promise<[string, number][]>;
}

/** A serious statement limit: creating a thousand tables in one batch takes a while. */
const BENCH_TARGET = { statement_timeout_ms: 600_000 };

function localOnly(url: string, server: string): string | undefined {
  const host = new URL(url).hostname;
  if (host === '127.0.0.1') return undefined;
  return `${server} skipped: the schema bench creates and drops a large database, on 127.0.0.1 only (not ${host}).`;
}

export const postgresEngine: Engine = {
  dialectName: 'postgresql',
  dialect: dialects.postgresql,
  async create() {
    const refused = localOnly(testPgUrl, 'PostgreSQL');
    if (refused) return refused;
    const database = await createTestPgDatabase();
    if (!database)
      return `PostgreSQL skipped: no server at ${redactUrl(testPgUrl)} (set TEST_PG_URL to one).`;
    return { ...database, config: targetConfig(database.url, BENCH_TARGET) };
  },
  async execute(url, batches) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // A multi-statement simple query is one implicit transaction.
      for (const batch of batches) await client.query(batch);
    } finally {
      await client.end();
    }
  },
  dumpTool: () => 'pg_dump',
  dump(database) {
    const { config } = database;
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (config.password) env.PGPASSWORD = config.password;
    return {
      command: 'pg_dump',
      args: [
        '-h',
        config.host,
        '-p',
        String(config.port),
        '-U',
        config.username,
        '--schema-only',
        config.database,
      ],
      env,
    };
  },
  async catalogTimes(url) {
    const queries: [string, string][] = [
      ['tables', pgCatalog.TABLES_SQL],
      ['columns', pgCatalog.COLUMNS_SQL],
      ['constraints', pgCatalog.CONSTRAINTS_SQL],
      ['indexes', pgCatalog.INDEXES_SQL],
      ['enums', pgCatalog.ENUMS_SQL],
      ['sequences', pgCatalog.SEQUENCES_SQL],
      ['sequence uses', pgCatalog.SEQUENCE_USES_SQL],
      ['unmanaged objects', UNMANAGED_SQL],
    ];
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // As the dialect runs them: one read-only snapshot, names printed schema-qualified.
      await client.query("begin isolation level repeatable read read only; set local search_path = ''");
      const times = await timeEach(queries, (sql) => client.query(sql));
      await client.query('commit');
      return times;
    } finally {
      await client.end();
    }
  },
};

const mysqlDumpTool = (flavor: Flavor) => (flavor === 'mariadb' ? 'mariadb-dump' : 'mysqldump');

export const mysqlEngine: Engine = {
  dialectName: 'mysql',
  dialect: dialects.mysql,
  async create() {
    const refused = localOnly(testMysqlUrl, 'MySQL/MariaDB');
    if (refused) return refused;
    const database = await createTestMysqlDatabase();
    if (!database) {
      return `MySQL/MariaDB skipped: no server at ${redactUrl(testMysqlUrl)} (set TEST_MYSQL_URL to one).`;
    }
    return { ...database, config: targetConfig(database.url, BENCH_TARGET) };
  },
  async execute(url, batches) {
    const connection = await mysql.createConnection({ uri: url, multipleStatements: true });
    try {
      for (const batch of batches) await connection.query(batch);
    } finally {
      await connection.end();
    }
  },
  dumpTool: mysqlDumpTool,
  dump(database, flavor) {
    const { config } = database;
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (config.password) env.MYSQL_PWD = config.password;
    return {
      command: mysqlDumpTool(flavor),
      args: [
        '-h',
        config.host,
        '-P',
        String(config.port),
        '-u',
        config.username,
        '--protocol=tcp',
        '--no-data',
        config.database,
      ],
      env,
    };
  },
  async catalogTimes(url, flavor) {
    const queries: [string, string][] = [
      ['tables', myCatalog.TABLES_SQL],
      ['columns', myCatalog.COLUMNS_SQL],
      ['statistics (indexes)', myCatalog.statisticsSql(flavor)],
      ['foreign keys', myCatalog.FOREIGN_KEYS_SQL],
      ['checks', myCatalog.checksSql(flavor)],
      ['unmanaged objects', myCatalog.UNMANAGED_SQL],
    ];
    // The dialect's driver options (catalog values kept as printed), so row parsing costs the same.
    const connection = await mysql.createConnection({
      uri: url,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
    try {
      return await timeEach(queries, (sql) => connection.query(sql));
    } finally {
      await connection.end();
    }
  },
};

async function timeEach(queries: [string, string][], query: (sql: string) => Promise<unknown>) {
  const times: [string, number][] = [];
  for (const [label, sql] of queries) {
    const started = performance.now();
    await query(sql);
    times.push([label, performance.now() - started]);
  }
  return times;
}

/** The first line of `tool --version`, or why it could not run. */
export async function toolVersion(tool: string): Promise<string | Error> {
  try {
    const { stdout } = await run(tool, ['--version']);
    return stdout.trim().split('\n')[0]!;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

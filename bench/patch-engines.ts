// The two servers of the patch bench (bench/patch.ts): a throw-away database on each test server
// (TEST_PG_URL, TEST_MYSQL_URL; 127.0.0.1 only), a generated `accounts`-like table loaded into it
// from scratch (also how the bench puts the data back between measurements, so that each starts from
// the same physical state), a checksum of the table, and the plain statement run by the engine's own
// command-line client (psql, mariadb or mysql), timed by the client itself.
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { DialectName } from '../src/engine/schema/model.ts';
import { createTestPgDatabase, redactUrl, testPgUrl } from '../test/support/databases.ts';
import { createTestMysqlDatabase, testMysqlUrl } from '../test/support/mysql.ts';
import { targetConfig } from '../test/support/targets.ts';
import { runClient } from './run-client.ts';
import type { BenchDatabase } from './schema-engines.ts';
import { toolVersion } from './schema-engines.ts';

/** What the CLI ran: the statement's time as the client reports it, and the whole process's. */
export interface PlainRun {
  /** psql `\timing` / mariadb -vvv: the statement's round trip, in autocommit. */
  ms: number;
  /** The client process from spawn to exit (start, connect, statement, disconnect). */
  wallMs: number;
  rows: number;
}

export interface PatchTarget {
  /** PostgreSQL, MariaDB or MySQL. */
  engine: string;
  server: string;
  /** The client's `--version` line. */
  client: string;
  database: BenchDatabase;
  /**
   * Drops the table and the service's backup tables, creates and fills the table again (rows
   * 1..`rows`, the same values each time), then analyzes it and writes its pages out (PostgreSQL:
   * VACUUM ANALYZE and CHECKPOINT; InnoDB: ANALYZE TABLE and FLUSH TABLES … FOR EXPORT), so that
   * no measurement pays for the previous one's dirty pages, dead rows or checkpoint.
   */
  load(table: string, rows: number): Promise<void>;
  /** Row count and an order-independent sum of row hashes. */
  checksum(table: string): Promise<string>;
  /** The table's size on disk, indexes included, in bytes. */
  size(table: string): Promise<number>;
  /** Runs one statement with the engine's CLI. */
  plain(sql: string): Promise<PlainRun>;
  /** The wall clock of `select 1` through the same CLI: what the client costs around a statement. */
  noop(): Promise<number>;
  drop(): Promise<void>;
}

export interface PatchEngine {
  dialect: DialectName;
  label: string;
  /** Why this engine is skipped (no server, not on 127.0.0.1), or a new empty database on it. */
  open(): Promise<PatchTarget | string>;
}

/** The service's backups (src/modules/patches/patch-images.ts), dropped with every reload. */
const PG_BACKUP_SCHEMA = 'dbops_backup';
const MYSQL_BACKUP_PREFIX = '_dbops_bak_';
const STATUSES = "'active', 'pending', 'closed'";

function localOnly(url: string, server: string): string | undefined {
  const host = new URL(url).hostname;
  if (host === '127.0.0.1') return undefined;
  return `${server} skipped: the patch bench creates and drops a large database, on 127.0.0.1 only (not ${host}).`;
}

function parsed(stdout: string, pattern: RegExp, what: string): RegExpMatchArray {
  const match = stdout.match(pattern);
  if (!match) throw new Error(`no ${what} in the client's output: ${stdout.slice(0, 300)}`);
  return match;
}

export const postgresPatchEngine: PatchEngine = {
  dialect: 'postgresql',
  label: 'PostgreSQL',
  async open() {
    const refused = localOnly(testPgUrl, 'PostgreSQL');
    if (refused) return refused;
    const created = await createTestPgDatabase();
    if (!created) return `PostgreSQL skipped: no server at ${redactUrl(testPgUrl)} (set TEST_PG_URL to one).`;
    const database: BenchDatabase = { ...created, config: targetConfig(created.url) };
    const { config } = database;
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (config.password) env.PGPASSWORD = config.password;
    const connection = ['-X', '-h', config.host, '-p', String(config.port), '-U', config.username];
    const query = async (sql: string) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as Record<string, unknown>[];
      } finally {
        await client.end();
      }
    };
    const tool = await toolVersion('psql');
    const server = String((await query('show server_version'))[0]!.server_version);
    return {
      engine: 'PostgreSQL',
      server,
      client: typeof tool === 'string' ? tool : `psql: ${tool.message}`,
      database,
      async load(table, rows) {
        // Without the key while filling, then one sorted build: faster, and the same index each time.
        await query(
          `drop schema if exists ${PG_BACKUP_SCHEMA} cascade; drop table if exists ${table};
           create table ${table} (
             id bigint not null, email text not null, name text not null, balance numeric(14, 2) not null,
             status text not null, updated_at timestamp not null, note text);
           insert into ${table}
           select i, 'user' || i || '@example.com', 'Customer ' || substr(md5(i::text), 1, 16),
                  (i % 100000) / 100.0, (array[${STATUSES}])[i % 3 + 1],
                  timestamp '2024-01-01' + i * interval '1 second', substr(md5((-i)::text), 1, 40)
           from generate_series(1, ${rows}) as s(i);
           alter table ${table} add primary key (id);`,
        );
        // Outside the implicit transaction of a multi-statement query: VACUUM cannot run in one.
        await query(`vacuum analyze ${table}`);
        await query('checkpoint');
      },
      async checksum(table) {
        const [row] = await query(
          `select count(*) || ':' || sum(hashtext(t::text)::bigint) as sum from ${table} t`,
        );
        return String(row!.sum);
      },
      async size(table) {
        return Number((await query(`select pg_total_relation_size('${table}') as bytes`))[0]!.bytes);
      },
      async plain(sql) {
        const args = [...connection, '-d', config.database, '-v', 'ON_ERROR_STOP=1'];
        const { stdout, wallMs } = await runClient('psql', [...args, '-c', '\\timing on', '-c', sql], env);
        return {
          ms: Number(parsed(stdout, /^Time: ([\d.]+) ms/m, '`Time:` line')[1]),
          wallMs,
          rows: Number(parsed(stdout, /^(?:UPDATE|DELETE|INSERT \d+) (\d+)$/m, 'command tag')[1]),
        };
      },
      async noop() {
        return (await runClient('psql', [...connection, '-d', config.database, '-c', 'select 1'], env))
          .wallMs;
      },
      drop: () => database.drop(),
    };
  },
};

export const mysqlPatchEngine: PatchEngine = {
  dialect: 'mysql',
  label: 'MySQL/MariaDB',
  async open() {
    const refused = localOnly(testMysqlUrl, 'MySQL/MariaDB');
    if (refused) return refused;
    const created = await createTestMysqlDatabase();
    if (!created)
      return `MySQL/MariaDB skipped: no server at ${redactUrl(testMysqlUrl)} (set TEST_MYSQL_URL to one).`;
    const database: BenchDatabase = { ...created, config: targetConfig(created.url) };
    const { config } = database;
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (config.password) env.MYSQL_PWD = config.password;
    const connection = [
      '--protocol=tcp',
      '-h',
      config.host,
      '-P',
      String(config.port),
      '-u',
      config.username,
    ];
    const session = async <T>(work: (c: mysql.Connection) => Promise<T>): Promise<T> => {
      const c = await mysql.createConnection({ uri: database.url, multipleStatements: true });
      try {
        return await work(c);
      } finally {
        await c.end();
      }
    };
    const query = (sql: string) => session(async (c) => (await c.query(sql))[0] as Record<string, unknown>[]);
    const version = String((await query('select version() as v'))[0]!.v);
    const mariadb = /mariadb/i.test(version);
    const cli = mariadb ? 'mariadb' : 'mysql';
    const tool = await toolVersion(cli);
    // The Sequence engine (MariaDB) gives 1..n in order; elsewhere, digits cross-joined and sorted.
    const sequence =
      mariadb &&
      (
        await query(
          "select 1 from information_schema.engines where engine = 'SEQUENCE' and support in ('YES', 'DEFAULT')",
        )
      ).length > 0;
    const numbers = (rows: number) => {
      if (sequence) return `(select seq as n from seq_1_to_${rows}) s`;
      const digits =
        '(select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9)';
      const places = Math.max(1, Math.ceil(Math.log10(rows)));
      const terms = Array.from({ length: places }, (_, i) => `${10 ** i} * d${i}.d`).join(' + ');
      const joins = Array.from({ length: places }, (_, i) => `${digits} d${i}`).join(' cross join ');
      return `(select ${terms} + 1 as n from ${joins} order by n) s`;
    };
    return {
      engine: mariadb ? 'MariaDB' : 'MySQL',
      server: version,
      client: typeof tool === 'string' ? tool : `${cli}: ${tool.message}`,
      database,
      async load(table, rows) {
        const backups = await query(
          `select table_name as t from information_schema.tables where table_schema = database() and table_name like '${MYSQL_BACKUP_PREFIX.replaceAll('_', '\\_')}%'`,
        );
        for (const { t } of backups) await query(`drop table \`${String(t)}\``);
        await query(
          `drop table if exists ${table};
           create table ${table} (
             id bigint not null primary key, email varchar(64) not null, name varchar(64) not null,
             balance decimal(14, 2) not null, status varchar(16) not null, updated_at datetime not null,
             note varchar(64)) engine = InnoDB;
           insert into ${table}
           select n, concat('user', n, '@example.com'), concat('Customer ', substr(md5(n), 1, 16)),
                  (n % 100000) / 100, elt(n % 3 + 1, ${STATUSES}),
                  timestamp('2024-01-01') + interval n second, substr(md5(-n), 1, 40)
           from ${numbers(rows)} where n <= ${rows};
           analyze table ${table};`,
        );
        // Writes the table's dirty pages (and waits for purge): InnoDB's checkpoint of one table.
        await session(async (c) => {
          await c.query(`flush tables ${table} for export`);
          await c.query('unlock tables');
        });
      },
      async checksum(table) {
        const [row] = await query(
          `select concat(count(*), ':', coalesce(sum(crc32(concat_ws('|', id, email, name, balance, status, updated_at, coalesce(note, '')))), 0)) as sum from ${table}`,
        );
        return String(row!.sum);
      },
      async size(table) {
        const [row] = await query(
          `select data_length + index_length as bytes from information_schema.tables where table_schema = database() and table_name = '${table}'`,
        );
        return Number(row!.bytes);
      },
      async plain(sql) {
        const args = [...connection, '-D', config.database, '-vvv', '-e', sql];
        const { stdout, wallMs } = await runClient(cli, args, env);
        const match = parsed(
          stdout,
          /Query OK, (\d+) rows? affected \((?:(\d+) min )?([\d.]+) sec\)/,
          '`Query OK` line',
        );
        return {
          ms: (Number(match[2] ?? 0) * 60 + Number(match[3])) * 1000,
          wallMs,
          rows: Number(match[1]),
        };
      },
      async noop() {
        return (await runClient(cli, [...connection, '-D', config.database, '-e', 'select 1'], env)).wallMs;
      },
      drop: () => database.drop(),
    };
  },
};

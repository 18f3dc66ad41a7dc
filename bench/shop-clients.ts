// The engines' own clients as the shop bench runs them, for its set-up and for the references its
// figures are measured beside: psql, `psql | psql` COPY pipes, mariadb and pgloader. Each returns
// its wall time in ms.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runClient } from './run-client.ts';
import { SHOP_TABLES, type ShopTable } from './shop-schema.ts';

/** UTC sessions: the rows' timestamps are written and read as UTC on every side. */
const ENV = { ...process.env, PGTZ: 'UTC', TZ: 'UTC' };

const psqlArgs = (url: string, sql: string) => ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql];

export async function psql(url: string, sql: string): Promise<number> {
  return (await runClient('psql', psqlArgs(url, sql), ENV)).wallMs;
}

/** A shell command line of psql running `sql` (the URL and statement single-quoted for bash). */
function psqlLine(url: string, sql: string): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `psql -X -q -v ON_ERROR_STOP=1 -d ${quote(url)} -c ${quote(sql)}`;
}

/** `psql -c "\copy t to stdout" | psql -c "\copy t from stdin"` for each table, one after the other. */
export async function copyPipe(from: string, into: string, tables: readonly string[]): Promise<number> {
  const script = tables
    .map((t) => `${psqlLine(from, `\\copy ${t} to stdout`)} | ${psqlLine(into, `\\copy ${t} from stdin`)}`)
    .join(' && ');
  return (await runClient('bash', ['-o', 'pipefail', '-c', script], ENV)).wallMs;
}

/** Loads the shop's files into a PostgreSQL database's tables with `\copy … from`. */
export async function pgLoadFiles(url: string, files: Record<ShopTable, string>): Promise<number> {
  let ms = 0;
  for (const table of SHOP_TABLES) ms += await psql(url, `\\copy ${table} from '${files[table]}'`);
  return ms;
}

/** Writes a PostgreSQL database's shop tables, in key order, to files under `dir`. */
export async function pgDumpFiles(url: string, dir: string): Promise<Record<ShopTable, string>> {
  const files: Partial<Record<ShopTable, string>> = {};
  for (const table of SHOP_TABLES) {
    files[table] = path.join(dir, `${table}.seeded.tsv`);
    await psql(url, `\\copy (select * from ${table} order by id) to '${files[table]}'`);
  }
  return files as Record<ShopTable, string>;
}

function mariadbArgs(url: string): string[] {
  const u = new URL(url);
  return [
    '-h',
    u.hostname,
    '-P',
    u.port || '3306',
    '-u',
    decodeURIComponent(u.username),
    ...(u.password ? [`-p${decodeURIComponent(u.password)}`] : []),
    u.pathname.slice(1),
  ];
}

export async function mariadb(url: string, sql: string): Promise<number> {
  return (await runClient('mariadb', ['--local-infile=1', ...mariadbArgs(url), '-e', sql], ENV)).wallMs;
}

/** Loads the shop's files into a MariaDB database's tables with LOAD DATA LOCAL INFILE. */
export async function mariadbLoadFiles(url: string, files: Record<ShopTable, string>): Promise<number> {
  const load = SHOP_TABLES.map(
    (t) => `load data local infile '${files[t]}' into table ${t} character set utf8mb4;`,
  ).join(' ');
  return mariadb(url, `set foreign_key_checks = 0; ${load}`);
}

export const pgloaderInstalled = () => existsSync('/usr/bin/pgloader') && existsSync('/usr/bin/time');

/** pgloader from a MariaDB database into an empty PostgreSQL one: its time and peak RSS (bytes). */
export async function pgloader(from: string, into: string): Promise<{ ms: number; rss: number }> {
  const report = path.join(os.tmpdir(), `shop-bench-pgloader-${process.pid}.time`);
  try {
    const { wallMs } = await runClient(
      '/usr/bin/time',
      ['-o', report, '-f', '%M', 'pgloader', '--on-error-stop', from, into],
      ENV,
    );
    const kb = Number((await readFile(report, 'utf8')).trim().split('\n').at(-1));
    return { ms: wallMs, rss: kb * 1024 };
  } finally {
    await rm(report, { force: true });
  }
}

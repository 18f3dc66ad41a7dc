// A real MySQL/MariaDB server for tests (docs/architecture.md), as databases.ts is for PostgreSQL: each test
// file that needs one gets a throw-away database on the server at TEST_MYSQL_URL and drops it
// afterwards. An unreachable server skips those tests with one loud line (reportSkipped), or fails
// the run when REQUIRE_DATABASES=1.
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { databasesRequired, redactUrl } from './databases.ts';

export const testMysqlUrl = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

export interface TestMysqlDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Why MySQL/MariaDB at `url` cannot be used, or undefined when it answers. */
export async function probeMysql(url: string): Promise<string | undefined> {
  let connection: mysql.Connection | undefined;
  try {
    connection = await mysql.createConnection({ uri: url, connectTimeout: 3_000 });
    await connection.query('select 1');
    return undefined;
  } catch (error) {
    return error instanceof Error
      ? error.message || String((error as { code?: string }).code)
      : String(error);
  } finally {
    await connection?.end().catch(() => {});
  }
}

let mysqlProbe: Promise<string | undefined> | undefined;

/** Whether the MySQL/MariaDB server of the tests answers; with REQUIRE_DATABASES=1 an error if not. */
export async function mysqlAvailable(): Promise<boolean> {
  mysqlProbe ??= probeMysql(testMysqlUrl);
  const failure = await mysqlProbe;
  if (failure === undefined) return true;
  if (databasesRequired) {
    throw new Error(
      `REQUIRE_DATABASES=1 but MySQL/MariaDB at ${redactUrl(testMysqlUrl)} is unreachable: ${failure}`,
    );
  }
  return false;
}

/**
 * A new, empty database on the test server, or undefined when the server is unreachable (and
 * databases are not required). Call `drop()` when done.
 */
export async function createTestMysqlDatabase(): Promise<TestMysqlDatabase | undefined> {
  if (!(await mysqlAvailable())) return undefined;
  // Generated from [0-9a-f] only, so it is safe to write into the statement unquoted.
  const name = `dbops_test_${randomBytes(6).toString('hex')}`;
  await onMysqlServer((connection) => connection.query(`create database ${name}`));
  const url = new URL(testMysqlUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      await onMysqlServer((connection) => connection.query(`drop database if exists ${name}`));
    },
  };
}

/** Runs `work` on a connection to the test server (for users, grants and other server-wide setup). */
export async function onMysqlServer<T>(work: (connection: mysql.Connection) => Promise<T>): Promise<T> {
  const connection = await mysql.createConnection({ uri: testMysqlUrl, connectTimeout: 3_000 });
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

// Real database servers for tests (docs/architecture.md). A test that needs PostgreSQL gets a throw-away
// database of its own on the server at TEST_PG_URL and drops it afterwards, so test files never see
// one another's data and run in parallel. An unreachable server skips those tests with one loud
// line, or fails the run when REQUIRE_DATABASES=1 (what CI sets).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { migrationsKey } from './store-template.ts';

export const testPgUrl = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const databasesRequired = process.env.REQUIRE_DATABASES === '1';

export interface TestPgDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** The URL without its password, for messages. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Why PostgreSQL at `url` cannot be used, or undefined when it answers. */
export async function probePg(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  // An error event after a failed connect would otherwise be unhandled and end the test run.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

// One probe per test process (per test file's worker), however many suites ask.
let pgProbe: Promise<string | undefined> | undefined;

/**
 * Whether the PostgreSQL server of the tests answers. With REQUIRE_DATABASES=1 an unreachable
 * server is an error instead of a `false`.
 */
export async function pgAvailable(): Promise<boolean> {
  pgProbe ??= probePg(testPgUrl);
  const failure = await pgProbe;
  if (failure === undefined) return true;
  if (databasesRequired) {
    throw new Error(
      `REQUIRE_DATABASES=1 but PostgreSQL at ${redactUrl(testPgUrl)} is unreachable: ${failure}`,
    );
  }
  return false;
}

/** The one loud line for tests skipped for want of a server. */
export function reportSkipped(what: string, server: 'PostgreSQL' | 'MySQL', url: string): void {
  console.warn(
    `\n*** SKIPPED ${what}: no ${server} server at ${redactUrl(url)} ` +
      '(start one, or set REQUIRE_DATABASES=1 to make this an error) ***\n',
  );
}

/**
 * A new, empty database on the test server, or undefined when the server is unreachable (and
 * databases are not required). Call `drop()` when done; it ends any connection still open on it.
 */
export async function createTestPgDatabase(): Promise<TestPgDatabase | undefined> {
  if (!(await pgAvailable())) return undefined;
  return createDatabase('dbops_test');
}

/**
 * The name of this run's migrated store database, set by the global setup (./global-setup.ts) for
 * the test processes it starts; read by `createStorePgDatabase` only. Production code never reads it.
 */
export const STORE_TEMPLATE_ENV = 'DBOPS_TEST_STORE_TEMPLATE';

/**
 * A new database to hold a service store, as `createTestPgDatabase`, but already migrated when the
 * run has a template of the current migrations: a copy of it (CREATE DATABASE … TEMPLATE copies its
 * files) costs a tenth of running every migration again, about 0.6 s per test app. Without one (a
 * bench, a script, a migration changed since the run began), it is empty and the caller's
 * migrations do the work.
 */
export async function createStorePgDatabase(): Promise<TestPgDatabase | undefined> {
  if (!(await pgAvailable())) return undefined;
  const template = process.env[STORE_TEMPLATE_ENV];
  const current = template !== undefined && new RegExp(`^${templatePrefix()}_[0-9a-f]+$`).test(template);
  return createDatabase('dbops_test', current ? template : undefined);
}

const templatePrefix = () => `dbops_template_${migrationsKey()}`;

/**
 * A database with every store migration applied, that no one connects to (CREATE DATABASE …
 * TEMPLATE refuses a source with sessions open): the global setup's template for the run.
 */
export async function createStoreTemplate(): Promise<TestPgDatabase> {
  const database = await createDatabase(templatePrefix());
  const store = await openStore({ kind: 'postgres', url: database.url });
  try {
    await migrateToLatest(store.db);
  } finally {
    await store.close();
  }
  await onServer((client) => client.query(`alter database ${database.name} allow_connections false`));
  return database;
}

async function createDatabase(prefix: string, template?: string): Promise<TestPgDatabase> {
  // Generated from [0-9a-f] only, so it is safe to write into the statement unquoted.
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const from = template ? ` template ${template}` : '';
  await onServer((client) => client.query(`create database ${name}${from}`));
  const url = new URL(testPgUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      // WITH (FORCE) (PostgreSQL 13+): a pool a test forgot to close must not leave the database behind.
      await onServer((client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testPgUrl, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

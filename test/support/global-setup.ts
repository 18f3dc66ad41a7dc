// Runs once before the whole suite. It builds the embedded-store template (./store-template.ts) if
// the cache has none for these migrations, before the test files would race to, and, when the
// PostgreSQL server answers, this run's migrated store database that test apps copy
// (`createStorePgDatabase`), dropped at the end. With REQUIRE_DATABASES=1 (CI) it stops the run at
// once, with one clear message, when a database server is missing, rather than letting every
// database-backed test fail on its own. Without it, each test file skips what it cannot run.
import {
  createStoreTemplate,
  databasesRequired,
  probePg,
  redactUrl,
  STORE_TEMPLATE_ENV,
  testPgUrl,
} from './databases.ts';
import { probeMysql, testMysqlUrl } from './mysql.ts';
import { probeRedis, testRedisUrl } from './rate-limits.ts';
import { storeTemplate } from './store-template.ts';

export async function setup(): Promise<() => Promise<void>> {
  await storeTemplate();
  const failure = await probePg(testPgUrl);
  if (databasesRequired) await requireServers(failure);
  if (failure !== undefined) return async () => {};
  // The test processes are started after this, with this process's environment.
  const template = await createStoreTemplate();
  process.env[STORE_TEMPLATE_ENV] = template.name;
  return () => template.drop();
}

async function requireServers(pgFailure: string | undefined): Promise<void> {
  if (pgFailure !== undefined) {
    throw new Error(
      `REQUIRE_DATABASES=1 but PostgreSQL at ${redactUrl(testPgUrl)} is unreachable: ${pgFailure}`,
    );
  }
  // Redis (TEST_REDIS_URL) holds the shared rate-limit counters; their tests run against it.
  const redisFailure = await probeRedis(testRedisUrl);
  if (redisFailure !== undefined) {
    throw new Error(
      `REQUIRE_DATABASES=1 but Redis at ${redactUrl(testRedisUrl)} is unreachable: ${redisFailure}`,
    );
  }
  const mysqlFailure = await probeMysql(testMysqlUrl);
  if (mysqlFailure !== undefined) {
    throw new Error(
      `REQUIRE_DATABASES=1 but MySQL/MariaDB at ${redactUrl(testMysqlUrl)} is unreachable: ${mysqlFailure}`,
    );
  }
}

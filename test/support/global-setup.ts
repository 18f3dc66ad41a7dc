// Runs once before the whole suite. It builds the embedded-store template (./store-template.ts) if
// the cache has none for these migrations, before the test files would race to. With
// REQUIRE_DATABASES=1 (CI) it stops the run at once, with one clear message, when a database server
// is missing, rather than letting every database-backed test fail on its own. Without it there is
// nothing more to do: each test file skips what it cannot run.
import { databasesRequired, probePg, redactUrl, testPgUrl } from './databases.ts';
import { probeMysql, testMysqlUrl } from './mysql.ts';
import { probeRedis, testRedisUrl } from './rate-limits.ts';
import { storeTemplate } from './store-template.ts';

export async function setup(): Promise<void> {
  await storeTemplate();
  if (!databasesRequired) return;
  const failure = await probePg(testPgUrl);
  if (failure !== undefined) {
    throw new Error(
      `REQUIRE_DATABASES=1 but PostgreSQL at ${redactUrl(testPgUrl)} is unreachable: ${failure}`,
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

// Runs once before the whole suite. With REQUIRE_DATABASES=1 (CI) it stops the run at once, with one
// clear message, when a database server is missing, rather than letting every database-backed test
// fail on its own. Without it there is nothing to do: each test file skips what it cannot run.
import { databasesRequired, probePg, redactUrl, testPgUrl } from './databases.ts';

export async function setup(): Promise<void> {
  if (!databasesRequired) return;
  const failure = await probePg(testPgUrl);
  if (failure !== undefined) {
    throw new Error(
      `REQUIRE_DATABASES=1 but PostgreSQL at ${redactUrl(testPgUrl)} is unreachable: ${failure}`,
    );
  }
  // MariaDB/MySQL (TEST_MYSQL_URL, default mysql://root@127.0.0.1:3306/test) is not checked yet:
  // `mysql2` is not a dependency so far. Add the check here with the first MySQL-backed test.
}

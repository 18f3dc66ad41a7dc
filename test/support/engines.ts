// The two target engines that end-to-end suites run the same tests on, PostgreSQL and
// MariaDB/MySQL: whether each server answers (reported once, as every suite reports a missing
// server), and how to make, fill and read a throw-away database on it. Suites spread a descriptor
// and add their own fields (schema, expected SQL, ...) rather than repeating this table.
import type { DialectName } from '../../src/engine/schema/model.ts';
import { loadMysqlSql, loadPostgresSql } from './corpus.ts';
import { createTestPgDatabase, pgAvailable, reportSkipped, testPgUrl } from './databases.ts';
import { createTestMysqlDatabase, mysqlAvailable, testMysqlUrl } from './mysql.ts';
import { queryMysql, queryPostgres } from './target-query.ts';

export interface TargetEngine {
  /** As test names show it: 'PostgreSQL' or 'MariaDB / MySQL'. */
  name: string;
  dialect: DialectName;
  /** Whether the test server answers; the engine's tests are skipped when it does not. */
  up: boolean;
  /** A new, empty database; call only when `up`. */
  create(): Promise<{ url: string; drop(): Promise<void> }>;
  /** Runs a script of statements on the database at `url`. */
  load(url: string, sql: string): Promise<void>;
  /** The rows of one query on the database at `url`, bypassing the service. */
  query(url: string, sql: string): Promise<Record<string, unknown>[]>;
}

/**
 * Probes both test servers and describes them. A missing server gets the one loud line, naming
 * `what` (the suite), or fails the run when REQUIRE_DATABASES=1.
 */
export async function targetEngines(
  what: string,
): Promise<{ postgresql: TargetEngine; mysql: TargetEngine }> {
  const pgUp = await pgAvailable();
  if (!pgUp) reportSkipped(what, 'PostgreSQL', testPgUrl);
  const mysqlUp = await mysqlAvailable();
  if (!mysqlUp) reportSkipped(what, 'MySQL', testMysqlUrl);
  return {
    postgresql: {
      name: 'PostgreSQL',
      dialect: 'postgresql',
      up: pgUp,
      // Undefined only when the server is down, and then no test calls it.
      create: async () => (await createTestPgDatabase())!,
      load: loadPostgresSql,
      query: queryPostgres,
    },
    mysql: {
      name: 'MariaDB / MySQL',
      dialect: 'mysql',
      up: mysqlUp,
      create: async () => (await createTestMysqlDatabase())!,
      load: loadMysqlSql,
      query: queryMysql,
    },
  };
}

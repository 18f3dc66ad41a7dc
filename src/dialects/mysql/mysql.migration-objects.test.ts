// Views, triggers, stored routines and column placement on MariaDB, as round trips with the dump
// oracle (mariadb-dump --no-data): the fixture pairs of test/fixtures/schema/mariadb, both ways.
// Each case has its own databases and mostly waits on the server and on mariadb-dump: the cases run
// side by side (it.concurrent).
import { describe, expect, it } from 'vitest';
import { reportSkipped } from '../../../test/support/databases.ts';
import type { LoadedDatabase } from '../../../test/support/migrations.ts';
import { mysqlAvailable, testMysqlUrl } from '../../../test/support/mysql.ts';
import {
  fixtureRoundTrip,
  readSchemaFixture,
  schemaFixtureCases,
  withDatabases,
} from '../../../test/support/schema-fixtures.ts';
import { mysqlDialect } from './mysql.dialect.ts';

const mysqlUp = await mysqlAvailable();
if (!mysqlUp)
  reportSkipped(
    'MariaDB object migrations (src/dialects/mysql/mysql.migration-objects.test.ts)',
    'MySQL',
    testMysqlUrl,
  );

describe.skipIf(!mysqlUp)(
  'MariaDB migrations of views, triggers, routines, columns (fixtures, both ways)',
  () => {
    const cases = schemaFixtureCases('mariadb');
    it.concurrent.each(cases)('%s: a → b', async (name) => {
      const a = readSchemaFixture('mariadb', name, 'a.sql');
      const b = readSchemaFixture('mariadb', name, 'b.sql');
      // The dump oracle forgives column order: here it must match the source's (AFTER / FIRST).
      const order = async (db: LoadedDatabase) =>
        (await db.handle.introspect()).tables.map(
          (t) => `${t.name}(${t.columns.map((c) => c.name).join(',')})`,
        );
      const migration = await withDatabases((open) =>
        fixtureRoundTrip(mysqlDialect, a, b, open, `fx-${name}-ab`, async (target, source) => {
          expect(await order(target)).toEqual(await order(source));
        }),
      );
      expect(migration.statements.length).toBeGreaterThan(0);
    });
    it.concurrent.each(cases)('%s: b → a', async (name) => {
      const a = readSchemaFixture('mariadb', name, 'a.sql');
      const b = readSchemaFixture('mariadb', name, 'b.sql');
      const migration = await withDatabases((open) =>
        fixtureRoundTrip(mysqlDialect, b, a, open, `fx-${name}-ba`),
      );
      expect(migration.statements.length).toBeGreaterThan(0);
    });
  },
);

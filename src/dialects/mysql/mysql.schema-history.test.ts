// A MariaDB schema's history as a long-lived application writes it (test/fixtures/schema/
// mariadb-history/<app>/vN.sql, one file per release): each release migrated to the next and back,
// with every oracle of schema-fixtures.ts (empty diff and second plan, equal mariadb-dump output,
// rollback to the original hash and dump). The steps run side by side, each with its own databases.
import { expect, it } from 'vitest';
import { reportSkipped } from '../../../test/support/databases.ts';
import { mysqlAvailable, testMysqlUrl } from '../../../test/support/mysql.ts';
import {
  fixtureRoundTrip,
  schemaHistorySteps,
  withDatabases,
} from '../../../test/support/schema-fixtures.ts';
import { mysqlDialect } from './mysql.dialect.ts';

const mysqlUp = await mysqlAvailable();
if (!mysqlUp)
  reportSkipped('schema histories (src/dialects/mysql/mysql.schema-history.test.ts)', 'MySQL', testMysqlUrl);

it.skipIf(!mysqlUp).concurrent.each(schemaHistorySteps('mariadb'))(
  '$name',
  async ({ name, target, source }) => {
    const migration = await withDatabases((open) =>
      fixtureRoundTrip(mysqlDialect, target, source, open, `history-${name.replace(/\W+/g, '-')}`),
    );
    expect(migration.statements.length).toBeGreaterThan(0);
  },
);

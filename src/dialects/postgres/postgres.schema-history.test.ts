// A schema's history as a long-lived application writes it (test/fixtures/schema/postgres-history/
// <app>/vN.sql, one file per release): each release migrated to the next and back, with every
// oracle of schema-fixtures.ts (empty diff and second plan, equal pg_dump output, rollback to the
// original hash and dump). The steps run side by side, each with its own databases.
import { expect, it } from 'vitest';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import {
  fixtureRoundTrip,
  schemaHistorySteps,
  withDatabases,
} from '../../../test/support/schema-fixtures.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'schema histories (src/dialects/postgres/postgres.schema-history.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

it.skipIf(!pgUp).concurrent.each(schemaHistorySteps('postgres'))(
  '$name',
  async ({ name, target, source }) => {
    const migration = await withDatabases((open) =>
      fixtureRoundTrip(postgresDialect, target, source, open, `history-${name.replace(/\W+/g, '-')}`),
    );
    expect(migration.statements.length).toBeGreaterThan(0);
  },
);

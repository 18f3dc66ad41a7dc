// Every object kind the schema engine manages on PostgreSQL, as a round trip on a real server
// with the dump oracle: the fixture pairs of test/fixtures/schema/postgres, each both ways (b into
// a, then a into b: one direction creates what the other drops). See schema-fixtures.ts for the
// checks (empty diff and second plan, equal pg_dump output, rollback to the original hash and dump).
import { afterEach, describe, expect, it } from 'vitest';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import type { LoadedDatabase } from '../../../test/support/migrations.ts';
import {
  fixtureRoundTrip,
  readSchemaFixture,
  schemaFixtureCases,
} from '../../../test/support/schema-fixtures.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'PostgreSQL object migrations (src/dialects/postgres/postgres.migration-objects.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

describe.skipIf(!pgUp)('PostgreSQL migrations of every object kind (fixtures, both ways)', () => {
  const open: LoadedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });

  const cases = schemaFixtureCases('postgres');
  it.each(cases)('%s: a → b', async (name) => {
    const a = readSchemaFixture('postgres', name, 'a.sql');
    const b = readSchemaFixture('postgres', name, 'b.sql');
    const migration = await fixtureRoundTrip(postgresDialect, a, b, open, `fx-${name}-ab`);
    expect(migration.statements.length).toBeGreaterThan(0);
  });
  it.each(cases)('%s: b → a', async (name) => {
    const a = readSchemaFixture('postgres', name, 'a.sql');
    const b = readSchemaFixture('postgres', name, 'b.sql');
    const migration = await fixtureRoundTrip(postgresDialect, b, a, open, `fx-${name}-ba`);
    expect(migration.statements.length).toBeGreaterThan(0);
  });
});

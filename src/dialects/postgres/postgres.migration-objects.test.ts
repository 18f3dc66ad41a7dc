// Every object kind the schema engine manages on PostgreSQL, as a round trip on a real server
// with the dump oracle: the fixture pairs of test/fixtures/schema/postgres, each both ways (b into
// a, then a into b: one direction creates what the other drops). See schema-fixtures.ts for the
// checks (empty diff and second plan, equal pg_dump output, rollback to the original hash and dump).
// Each case has its own databases and mostly waits on the server and on pg_dump: the cases run side
// by side (it.concurrent).
import { describe, expect, it } from 'vitest';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import type { LoadedDatabase } from '../../../test/support/migrations.ts';
import {
  dumpWaivers,
  fixtureRoundTrip,
  readSchemaFixture,
  schemaFixtureCases,
  withDatabases,
} from '../../../test/support/schema-fixtures.ts';
import { queryPostgres } from '../../../test/support/target-query.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'PostgreSQL object migrations (src/dialects/postgres/postgres.migration-objects.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

describe.skipIf(!pgUp)('PostgreSQL migrations of every object kind (fixtures, both ways)', () => {
  const cases = schemaFixtureCases('postgres');
  it.concurrent.each(cases)('%s: a → b', async (name) => {
    const a = readSchemaFixture('postgres', name, 'a.sql');
    const b = readSchemaFixture('postgres', name, 'b.sql');
    const waivers = dumpWaivers('postgres', name);
    const migration = await withDatabases((open) =>
      fixtureRoundTrip(postgresDialect, a, b, open, `fx-${name}-ab`, undefined, {
        dump: waivers.has('a → b'),
        rollbackDump: waivers.has('a → b rollback'),
      }),
    );
    expect(migration.statements.length).toBeGreaterThan(0);
  });
  it.concurrent.each(cases)('%s: b → a', async (name) => {
    const a = readSchemaFixture('postgres', name, 'a.sql');
    const b = readSchemaFixture('postgres', name, 'b.sql');
    const waivers = dumpWaivers('postgres', name);
    const migration = await withDatabases((open) =>
      fixtureRoundTrip(postgresDialect, b, a, open, `fx-${name}-ba`, undefined, {
        dump: waivers.has('b → a'),
        rollbackDump: waivers.has('b → a rollback'),
      }),
    );
    expect(migration.statements.length).toBeGreaterThan(0);
  });

  it.concurrent('keeps every row when an inheritance-partitioned table is made declarative', async () => {
    const name = 'inheritance-to-declarative';
    const count = async (db: LoadedDatabase) => {
      const rows = await queryPostgres(
        db.url,
        'select count(*)::int as n, sum(value)::int as total from reading',
      );
      return rows[0];
    };
    await withDatabases((open) =>
      fixtureRoundTrip(
        postgresDialect,
        readSchemaFixture('postgres', name, 'a.sql'),
        readSchemaFixture('postgres', name, 'b.sql'),
        open,
        'fx-rows',
        async (target) => {
          expect(await count(target)).toEqual({ n: 3, total: 6 });
        },
        { rollbackDump: true },
      ),
    );
  });
});

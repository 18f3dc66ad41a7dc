// Every schema-diff pair of the shared corpus (migra's fixtures) on a real PostgreSQL, as migra tests
// them: a.sql into A, b.sql into B, plan with B as the source and A as the target, apply to A,
// compare again (nothing in scope may be left), then apply the rollback: A's schema hash must be
// its original one. Drops are planned with backup_drops, so every pair has a rollback.
import { afterEach, describe, expect, it } from 'vitest';
import { corpusAvailable, readCorpus, schemaDiffCases } from '../../../test/support/corpus.ts';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import {
  expectRoundTrip,
  type LoadedDatabase,
  loadedDatabase,
  roundTrip,
} from '../../../test/support/migrations.ts';
import { analyzeSql } from '../../engine/migration/edit.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'migration corpus (src/dialects/postgres/postgres.migration-corpus.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

const corpusUp = corpusAvailable(
  'migration corpus (src/dialects/postgres/postgres.migration-corpus.test.ts)',
);

describe.skipIf(!pgUp || !corpusUp)('migrations on the schema-diff corpus (PostgreSQL)', () => {
  const open: LoadedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });

  it.each(schemaDiffCases())(
    '%s: apply leaves nothing in scope, rollback restores the hash',
    async (name) => {
      const [a, b] = await Promise.all([
        loadedDatabase(postgresDialect, readCorpus('schema-diff', name, 'a.sql')),
        loadedDatabase(postgresDialect, readCorpus('schema-diff', name, 'b.sql')),
      ]);
      open.push(a, b);
      const result = await roundTrip(postgresDialect, b.handle, a.handle, {
        backup_drops: true,
        plan_id: `corpus-${name}`,
      });
      expect(result.migration.statements.length).toBeGreaterThan(0);
      expectRoundTrip(result, { rollback: true });

      // The generated SQL parses (libpg-query), and read back unchanged it is the planned
      // migration: every statement recognised, the same rollback.
      const analyzed = await analyzeSql(result.migration.sql, {
        dialect: postgresDialect,
        target: result.original,
        plan: result.migration,
      });
      expect(analyzed.statements.map((s) => s.parse_error)).toEqual(
        result.migration.statements.map(() => null),
      );
      expect(analyzed.statements.map((s) => s.planned_index)).toEqual(
        result.migration.statements.map((s) => s.index),
      );
      expect(analyzed.rollback_sql).toBe(result.migration.rollback_sql);
    },
  );
});

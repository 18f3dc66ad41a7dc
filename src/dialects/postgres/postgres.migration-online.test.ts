// An online plan on a real PostgreSQL (docs/contract.md §8 `online: true`): on tables with rows, checks and
// foreign keys are added NOT VALID in the transaction and validated after it, NOT NULL goes
// through a validated check, indexes are built CONCURRENTLY after it; the result is the source's
// schema, and the rollback gives the target's hash back.
import { afterEach, describe, expect, it } from 'vitest';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import {
  expectRoundTrip,
  type LoadedDatabase,
  loadedDatabase,
  roundTrip,
} from '../../../test/support/migrations.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'PostgreSQL online plans (src/dialects/postgres/postgres.migration-online.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

const TARGET = `
  CREATE TABLE parent (id integer PRIMARY KEY);
  CREATE TABLE child (id integer PRIMARY KEY, parent_id integer, qty integer, "Label" text);
  INSERT INTO parent VALUES (1), (2);
  INSERT INTO child VALUES (1, 1, 5, 'a'), (2, 2, 7, 'b');
`;
const SOURCE = `
  CREATE TABLE parent (id integer PRIMARY KEY);
  CREATE TABLE child (
    id integer PRIMARY KEY,
    parent_id integer CONSTRAINT child_parent REFERENCES parent (id),
    qty integer CONSTRAINT child_qty CHECK (qty > 0),
    "Label" text NOT NULL
  );
  CREATE INDEX child_qty_idx ON child (qty);
  CREATE TABLE fresh (id integer PRIMARY KEY, parent_id integer REFERENCES parent (id), CHECK (id > 0));
`;

describe.skipIf(!pgUp)('PostgreSQL online plans', () => {
  const open: LoadedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });

  it('keeps long locks out of the transaction and still arrives at the source schema', async () => {
    const [source, target] = await Promise.all([
      loadedDatabase(postgresDialect, SOURCE),
      loadedDatabase(postgresDialect, TARGET),
    ]);
    open.push(source, target);
    const result = await roundTrip(postgresDialect, source.handle, target.handle, { online: true });
    const statements = result.migration.statements.map((s) => [s.transactional, s.sql]);
    const inside = statements.filter(([tx]) => tx).map(([, sql]) => sql);
    const after = statements.filter(([tx]) => !tx).map(([, sql]) => sql);
    expect(inside).toEqual(
      expect.arrayContaining([
        'ALTER TABLE "public"."child" ADD CONSTRAINT "child_qty" CHECK (qty > 0) NOT VALID',
        'ALTER TABLE "public"."child" ADD CONSTRAINT "Label_not_null_dbops" CHECK ("Label" IS NOT NULL) NOT VALID',
      ]),
    );
    expect(inside.some((sql) => /child_parent.*NOT VALID$/.test(String(sql)))).toBe(true);
    // The new table's constraints are not split: it is empty.
    expect(
      inside.filter((sql) => String(sql).includes('"fresh"') && String(sql).includes('NOT VALID')),
    ).toEqual([]);
    // In the plan's own order: column changes, checks, indexes, foreign keys.
    expect(after).toEqual([
      'ALTER TABLE "public"."child" VALIDATE CONSTRAINT "Label_not_null_dbops"',
      'ALTER TABLE "public"."child" ALTER COLUMN "Label" SET NOT NULL',
      'ALTER TABLE "public"."child" DROP CONSTRAINT "Label_not_null_dbops"',
      'ALTER TABLE "public"."child" VALIDATE CONSTRAINT "child_qty"',
      'CREATE INDEX CONCURRENTLY "child_qty_idx" ON "public"."child" USING "btree" (qty)',
      'ALTER TABLE "public"."child" VALIDATE CONSTRAINT "child_parent"',
    ]);
    expectRoundTrip(result, { rollback: true });
  });
});

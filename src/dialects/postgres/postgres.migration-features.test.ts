// PostgreSQL migrations of the column and index features a real schema uses, both ways: created
// into an empty target (then rolled back), and dropped from a target that has them with rows (then
// restored by the rollback, rows included). Also the statements that cannot run in a transaction:
// ADD VALUE before it, CREATE INDEX CONCURRENTLY after it.
import pg from 'pg';
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
    'PostgreSQL migration features (src/dialects/postgres/postgres.migration-features.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

const FEATURES = `
  CREATE EXTENSION citext;
  CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
  CREATE DOMAIN positive AS integer CHECK (VALUE > 0);
  CREATE TABLE owner (id serial PRIMARY KEY, email citext NOT NULL UNIQUE);
  CREATE TABLE "Item Table" (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_id integer REFERENCES owner (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    "Name" text COLLATE "C" NOT NULL DEFAULT 'it''s',
    moods mood[] NOT NULL DEFAULT '{ok}',
    current mood DEFAULT 'ok',
    qty positive,
    price numeric(10,2) CHECK (price >= 0),
    attrs jsonb NOT NULL DEFAULT '{}',
    total numeric GENERATED ALWAYS AS (price * 2) STORED,
    during tsrange,
    created timestamptz NOT NULL DEFAULT now(),
    EXCLUDE USING gist (during WITH &&)
  );
  COMMENT ON TABLE "Item Table" IS 'items; with a comment';
  COMMENT ON COLUMN "Item Table"."Name" IS 'the name';
  CREATE INDEX item_lower_name ON "Item Table" (lower("Name") DESC NULLS LAST) INCLUDE (price) WHERE qty > 1;
  CREATE INDEX item_attrs ON "Item Table" USING gin (attrs jsonb_path_ops);
  INSERT INTO owner (email) VALUES ('A@example.com'), ('b@example.com');
  INSERT INTO "Item Table" (owner_id, "Name", moods, current, qty, price, during)
    VALUES (1, 'one', '{sad,happy}', 'happy', 2, 9.99, '[2024-01-01,2024-02-01)'),
           (2, 'two', '{ok}', NULL, 5, 1.50, '[2024-03-01,2024-04-01)');
`;

describe.skipIf(!pgUp)('PostgreSQL migrations: features', () => {
  const open: LoadedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });
  const databases = async (source: string, target: string) => {
    const dbs = await Promise.all([
      loadedDatabase(postgresDialect, source),
      loadedDatabase(postgresDialect, target),
    ]);
    open.push(...dbs);
    return dbs;
  };

  it('creates the extension and the domain the columns need, and rolls back', async () => {
    const [source, target] = await databases(FEATURES, '');
    const result = await roundTrip(postgresDialect, source.handle, target.handle);
    // Managed extensions are created at the source's version.
    expect(result.migration.statements[0]!.sql).toMatch(
      /^CREATE EXTENSION IF NOT EXISTS "citext" SCHEMA "public" VERSION '[\d.]+'$/,
    );
    expect(result.migration.statements.map((s) => s.sql)).toContain(
      'CREATE DOMAIN "public"."positive" AS integer CONSTRAINT "positive_check" CHECK (VALUE > 0)',
    );
    expectRoundTrip(result, { rollback: true });
  });

  it('creates them all when the domain exists already, and rolls back', async () => {
    const [source, target] = await databases(
      FEATURES,
      'CREATE DOMAIN positive AS integer CHECK (VALUE > 0);',
    );
    const result = await roundTrip(postgresDialect, source.handle, target.handle);
    expectRoundTrip(result, { rollback: true });
  });

  it('drops them all from a target with rows (backup_drops) and puts every row back on rollback', async () => {
    const [source, target] = await databases(
      'CREATE DOMAIN positive AS integer CHECK (VALUE > 0);',
      FEATURES,
    );
    const read = async () => {
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          `select id, owner_id, "Name", moods::text, current::text, qty, price::text, attrs, total::text, during::text
           from "Item Table" order by id`,
        );
        return rows;
      } finally {
        await client.end();
      }
    };
    const before = await read();
    const result = await roundTrip(postgresDialect, source.handle, target.handle, {
      backup_drops: true,
      plan_id: 'features',
    });
    expectRoundTrip(result, { rollback: true });
    expect(await read()).toEqual(before);
    // The identity goes on after the restored values.
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    try {
      const { rows } = await client.query(`insert into "Item Table" ("Name") values ('three') returning id`);
      expect(rows).toEqual([{ id: '3' }]);
    } finally {
      await client.end();
    }
  });

  it('runs ADD VALUE before the transaction and CREATE INDEX CONCURRENTLY after it', async () => {
    const [source, target] = await databases(
      "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy'); CREATE TABLE t (m mood DEFAULT 'happy', n int); CREATE INDEX t_n ON t (n);",
      "CREATE TYPE mood AS ENUM ('sad', 'ok'); CREATE TABLE t (m mood, n int);",
    );
    const result = await roundTrip(postgresDialect, source.handle, target.handle, {
      concurrent_indexes: true,
    });
    const { statements } = result.migration;
    expect(statements.map((s) => [s.kind, s.transactional])).toEqual([
      ['add_enum_value', false],
      ['alter_column_set_default', true],
      ['create_index', false],
    ]);
    expect(statements[2]!.sql).toContain('CONCURRENTLY');
    expect(result.applied.outside_transaction).toEqual([0, 2]);
    expect(result.applied.applied).toEqual([0, 1, 2]);
    expectRoundTrip(result, { rollback: true });
    expect(result.migration.rollback?.[0]).toMatchObject({
      sql: 'DROP INDEX CONCURRENTLY IF EXISTS "public"."t_n"',
      transactional: false,
    });
  });
});

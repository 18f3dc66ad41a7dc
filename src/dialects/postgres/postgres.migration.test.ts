// Migrations on real PostgreSQL schemas: Sakila and Chinook from the shared corpus, with a target
// changed by a script (columns added, dropped and retyped, indexes and foreign keys dropped or added,
// a table dropped, one added with rows). Plan with the untouched schema as the source, apply, compare
// again (nothing left), roll back (the target's original hash), and check the rows that backup_drops
// kept came back. Also: a failing statement leaves the target as it was.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusAvailable, readCorpus } from '../../../test/support/corpus.ts';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import {
  expectRoundTrip,
  type LoadedDatabase,
  loadedDatabase,
  roundTrip,
} from '../../../test/support/migrations.ts';
import { planMigration } from '../../engine/migration/migration.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped(
    'PostgreSQL migrations (src/dialects/postgres/postgres.migration.test.ts)',
    'PostgreSQL',
    testPgUrl,
  );

async function rows(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

const SAKILA_MUTATIONS = `
  INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES
    (1, 'PENELOPE', 'GUINESS', '2006-02-15 04:34:33'), (2, 'NICK', 'WAHLBERG', '2006-02-15 04:34:33');
  ALTER TABLE actor ADD COLUMN nickname text NOT NULL DEFAULT 'none';
  ALTER TABLE actor DISABLE TRIGGER last_updated;
  UPDATE actor SET nickname = 'nick-' || actor_id;
  ALTER TABLE actor ENABLE TRIGGER last_updated;
  ALTER TABLE film DROP COLUMN special_features;
  ALTER TABLE customer ALTER COLUMN email TYPE text;
  ALTER TABLE store ALTER COLUMN last_update DROP NOT NULL;
  ALTER TABLE category ALTER COLUMN last_update SET DEFAULT '2020-01-01';
  DROP INDEX idx_actor_last_name;
  CREATE INDEX extra_payment_amount ON payment (amount);
  ALTER TABLE address DROP CONSTRAINT address_city_id_fkey;
  DROP TABLE film_category CASCADE; -- and the views that read it (not managed)
  CREATE TABLE extra_notes (id integer PRIMARY KEY, note text, actor_id integer REFERENCES actor (actor_id));
  INSERT INTO extra_notes VALUES (1, 'first', 1), (2, 'second', 2);
`;

const corpusUp = corpusAvailable(
  'PostgreSQL migrations on Sakila and Chinook (src/dialects/postgres/postgres.migration.test.ts)',
);

describe.skipIf(!pgUp || !corpusUp)('PostgreSQL migrations: Sakila', () => {
  let source: LoadedDatabase;
  let target: LoadedDatabase;
  beforeAll(async () => {
    const schema = readCorpus('sakila', 'postgres-schema.sql');
    [source, target] = await Promise.all([
      loadedDatabase(postgresDialect, schema),
      loadedDatabase(postgresDialect, schema),
    ]);
    await target.run(SAKILA_MUTATIONS);
  });
  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()]);
  });

  it('plans, applies, leaves nothing, and rolls back to the original hash with the dropped rows', async () => {
    const result = await roundTrip(postgresDialect, source.handle, target.handle, {
      backup_drops: true,
      plan_id: 'sakila-pg',
    });
    const kinds = result.migration.statements.map((s) => `${s.kind} ${s.object}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'drop_foreign_key public.extra_notes.extra_notes_actor_id_fkey',
        'create_table public.film_category',
        'add_column public.film.special_features',
        'alter_column_type public.customer.email',
        'alter_column_set_not_null public.store.last_update',
        'alter_column_set_default public.category.last_update',
        'create_index public.actor.idx_actor_last_name',
        'drop_index public.payment.extra_payment_amount',
        'add_foreign_key public.address.address_city_id_fkey',
        'add_foreign_key public.film_category.film_category_film_id_fkey',
        'drop_column public.actor.nickname',
        'drop_table public.extra_notes',
      ]),
    );
    // Drops come last, foreign keys of new tables after the tables they reference.
    const index = (text: string) => kinds.indexOf(text);
    expect(index('drop_column public.actor.nickname')).toBeGreaterThan(
      index('create_table public.film_category'),
    );
    expect(index('add_foreign_key public.film_category.film_category_film_id_fkey')).toBeGreaterThan(
      index('create_table public.film_category'),
    );
    expect(result.migration.statements.every((s) => s.transactional)).toBe(true);
    expectRoundTrip(result, { rollback: true });

    // The values of the dropped column and the rows of the dropped table are back, and the actor's
    // last_update trigger did not stamp the restored rows.
    expect(
      await rows(target.url, 'select actor_id, nickname, last_update::text from actor order by actor_id'),
    ).toEqual([
      { actor_id: 1, nickname: 'nick-1', last_update: '2006-02-15 04:34:33' },
      { actor_id: 2, nickname: 'nick-2', last_update: '2006-02-15 04:34:33' },
    ]);
    expect(await rows(target.url, 'select id, note, actor_id from extra_notes order by id')).toEqual([
      { id: 1, note: 'first', actor_id: 1 },
      { id: 2, note: 'second', actor_id: 2 },
    ]);
  });

  it('without backup_drops, the drops make the migration irreversible', async () => {
    const migration = planMigration(
      await source.handle.introspect(),
      await target.handle.introspect(),
      postgresDialect,
    );
    expect(migration.statements.find((s) => s.kind === 'drop_table')).toMatchObject({
      destructive: true,
      reversible: false,
      rollback_sql: null,
    });
    expect(migration.rollback_sql).toBeNull();
  });
});

describe.skipIf(!pgUp || !corpusUp)('PostgreSQL migrations: Chinook', () => {
  it('round-trips a target with retyped, dropped and added objects (rows included)', async () => {
    const schema = readCorpus('chinook', 'postgres.sql');
    const [source, target] = await Promise.all([
      loadedDatabase(postgresDialect, schema),
      loadedDatabase(postgresDialect, schema),
    ]);
    try {
      await target.run(`
        ALTER TABLE track ALTER COLUMN name TYPE varchar(300);
        ALTER TABLE invoice DROP CONSTRAINT invoice_customer_id_fkey;
        DROP INDEX invoice_customer_id_idx;
        ALTER TABLE artist ADD COLUMN country text DEFAULT 'unknown';
        ALTER TABLE genre ADD COLUMN popularity integer NOT NULL DEFAULT 0;
        ALTER TABLE employee ALTER COLUMN title DROP DEFAULT;
        ALTER TABLE playlist_track DROP CONSTRAINT playlist_track_track_id_fkey;
        ALTER TABLE invoice_line ALTER COLUMN quantity TYPE bigint;
        CREATE UNIQUE INDEX media_type_name_key ON media_type (name);
      `);
      const before = await rows(target.url, 'select count(*)::int as n from track');
      const result = await roundTrip(postgresDialect, source.handle, target.handle, {
        backup_drops: true,
        plan_id: 'chinook-pg',
      });
      expectRoundTrip(result, { rollback: true });
      expect(
        result.migration.statements.find((s) => s.object === 'public.invoice_line.quantity'),
      ).toMatchObject({
        kind: 'alter_column_type',
        lossy: true,
      });
      expect(await rows(target.url, 'select count(*)::int as n from track')).toEqual(before);
      // The dropped column came back with its values (backup_drops).
      expect(
        await rows(
          target.url,
          "select count(*)::int as n from artist where country is distinct from 'unknown'",
        ),
      ).toEqual([{ n: 0 }]);
      expect(await rows(target.url, 'select count(*)::int as n from artist')).toEqual([{ n: 275 }]);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });
});

describe.skipIf(!pgUp)('PostgreSQL migrations: a failing statement', () => {
  it('a cancelled apply rolls its transaction back and says what was left', async () => {
    const [source, target] = await Promise.all([
      loadedDatabase(
        postgresDialect,
        'CREATE TABLE a (id int); CREATE TABLE b (id int); CREATE TABLE c (id int);',
      ),
      loadedDatabase(postgresDialect, ''),
    ]);
    try {
      const original = await target.handle.introspect();
      const migration = planMigration(await source.handle.introspect(), original, postgresDialect);
      const controller = new AbortController();
      const result = await target.handle.apply(migration.statements, {
        signal: controller.signal,
        onProgress: ({ done }) => done === 1 && controller.abort(),
      });
      expect(result).toMatchObject({
        cancelled: true,
        failed: null,
        applied: [],
        rolled_back: [0],
        not_applied: [0, 1, 2],
      });
      expect(schemaHash(await target.handle.introspect())).toBe(schemaHash(original));
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });

  it('leaves the target as it was: the transaction is rolled back and the result says so', async () => {
    const [source, target] = await Promise.all([
      loadedDatabase(
        postgresDialect,
        'CREATE TABLE t (id int PRIMARY KEY, code text UNIQUE, n int NOT NULL DEFAULT 0); CREATE TABLE u (id int);',
      ),
      loadedDatabase(
        postgresDialect,
        "CREATE TABLE t (id int PRIMARY KEY, code text, m int); INSERT INTO t VALUES (1, 'a', 1), (2, 'a', 2);",
      ),
    ]);
    try {
      const original = await target.handle.introspect();
      const migration = planMigration(await source.handle.introspect(), original, postgresDialect);
      const unique = migration.statements.findIndex((s) => s.kind === 'add_unique');
      expect(unique).toBeGreaterThan(0);
      const result = await target.handle.apply(migration.statements, { lockTimeoutMs: 2_000 });
      expect(result.failed).toMatchObject({
        index: unique,
        error: { cause: 'other', kind: 'constraint_violation', code: '23505' },
      });
      expect(result.applied).toEqual([]);
      expect(result.rolled_back).toEqual(migration.statements.map((s) => s.index).filter((i) => i < unique));
      expect([...result.not_applied, unique].sort((a, b) => a - b)).toEqual(
        migration.statements.map((s) => s.index),
      );
      expect(schemaHash(await target.handle.introspect())).toBe(schemaHash(original));
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });
});

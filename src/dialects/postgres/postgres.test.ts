// PostgreSQL introspection: Sakila and Chinook from the external corpus (CORPUS_DIR), scripted
// out-of-band changes and the leftovers of online schema change tools on a fixture of our own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusAvailable, loadPostgresSql, readCorpus } from '../../../test/support/corpus.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../../test/support/databases.ts';
import { readFixture } from '../../../test/support/fixtures.ts';
import { diffRows } from '../../../test/support/schema-models.ts';
import { targetConfig } from '../../../test/support/targets.ts';
import { diffSchemas, isEmptyDiff } from '../../engine/schema/diff.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import { type SchemaModel, tableKey } from '../../engine/schema/model.ts';
import type { TargetHandle } from '../dialect.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped('PostgreSQL introspection (src/dialects/postgres/postgres.test.ts)', 'PostgreSQL', testPgUrl);

/** A throw-away database loaded with `sql`, an open handle on it, and a way to run more SQL. */
async function loaded(sql: string) {
  const database = (await createTestPgDatabase()) as TestPgDatabase;
  let handle: TargetHandle;
  try {
    await loadPostgresSql(database.url, sql);
    handle = await postgresDialect.open(targetConfig(database.url));
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    database,
    handle,
    run: (statements: string) => loadPostgresSql(database.url, statements),
    async close() {
      await handle.close();
      await database.drop();
    },
  };
}

const table = (model: SchemaModel, key: string) => {
  const found = model.tables.find((t) => tableKey(t) === key);
  if (!found) throw new Error(`no table ${key}`);
  return found;
};
const column = (model: SchemaModel, key: string, name: string) =>
  table(model, key).columns.find((c) => c.name === name)!;

const corpusUp = corpusAvailable(
  'PostgreSQL introspection of Sakila and Chinook (src/dialects/postgres/postgres.test.ts)',
);

describe.skipIf(!pgUp || !corpusUp)('PostgreSQL: Sakila', () => {
  let target: Awaited<ReturnType<typeof loaded>>;
  beforeAll(async () => {
    target = await loaded(readCorpus('sakila', 'postgres-schema.sql'));
  });
  afterAll(async () => {
    await target?.close();
  });

  it('introspects the whole schema into the model, the same twice, and equal to itself', async () => {
    const started = performance.now();
    const model = await target.handle.introspect();
    const elapsed = performance.now() - started;
    console.info(
      `Sakila introspection on PostgreSQL ${target.handle.serverVersion}: ${elapsed.toFixed(1)} ms`,
    );

    expect(model.dialect).toBe('postgresql');
    expect(model.tables).toHaveLength(21);
    expect(model.tables.map(tableKey)).toContain('public.payment_p2007_01');

    const film = table(model, 'public.film');
    expect(film.primary_key).toEqual({
      name: 'film_pkey',
      columns: ['film_id'],
      deferrable: false,
      initially_deferred: false,
    });
    expect(column(model, 'public.film', 'film_id')).toMatchObject({
      type: 'integer',
      nullable: false,
      default: "nextval('public.film_film_id_seq'::regclass)",
      default_normalized: "nextval('public.film_film_id_seq')",
    });
    expect(column(model, 'public.film', 'rating')).toMatchObject({
      type: 'public.mpaa_rating',
      default_normalized: "'G'",
    });
    expect(column(model, 'public.film', 'special_features').type).toBe('text[]');
    expect(column(model, 'public.film', 'release_year').type).toBe('public.year');
    expect(column(model, 'public.film', 'rental_rate')).toMatchObject({
      type: 'numeric(4,2)',
      default_normalized: '4.99',
    });
    expect(column(model, 'public.film', 'last_update')).toMatchObject({
      default: 'now()',
      default_normalized: 'current_timestamp',
    });
    expect(
      film.foreign_keys.map((fk) => [fk.name, fk.columns, fk.referenced_table, fk.on_update, fk.on_delete]),
    ).toEqual([
      ['film_language_id_fkey', ['language_id'], 'language', 'cascade', 'restrict'],
      ['film_original_language_id_fkey', ['original_language_id'], 'language', 'cascade', 'restrict'],
    ]);
    expect(film.indexes.find((i) => i.name === 'film_fulltext_idx')).toEqual({
      name: 'film_fulltext_idx',
      columns: ['fulltext'],
      include: [],
      unique: false,
      method: 'gist',
      predicate: null,
    });
    expect(table(model, 'public.payment_p2007_01').check_constraints).toEqual([
      {
        name: 'payment_p2007_01_payment_date_check',
        expression:
          "payment_date >= '2007-01-01 00:00:00'::timestamp without time zone AND payment_date < '2007-02-01 00:00:00'::timestamp without time zone",
      },
    ]);

    expect(model.enums).toEqual([
      {
        schema: 'public',
        name: 'mpaa_rating',
        values: ['G', 'PG', 'PG-13', 'R', 'NC-17'],
        used_by: [{ schema: 'public', table: 'film', column: 'rating' }],
      },
    ]);
    expect(model.sequences.find((s) => s.name === 'actor_actor_id_seq')).toMatchObject({
      schema: 'public',
      data_type: 'bigint',
      owned_by: null,
      used_by: [{ schema: 'public', table: 'actor', column: 'actor_id' }],
    });
    const unmanaged = model.unmanaged.map((o) => `${o.kind} ${o.name}${o.table ? ` on ${o.table}` : ''}`);
    expect(unmanaged).toEqual(
      expect.arrayContaining([
        'view actor_info',
        'view staff_list',
        'function film_in_stock(p_film_id integer, p_store_id integer, OUT p_film_count integer)',
        'aggregate group_concat(text)',
        'trigger film_fulltext_trigger on film',
        'trigger last_updated on actor',
        'domain year',
        'rule payment_insert_p2007_01 on payment',
      ]),
    );

    const again = await target.handle.introspect();
    expect(schemaHash(again)).toBe(schemaHash(model));
    expect(isEmptyDiff(diffSchemas(model, again))).toBe(true);
    expect(isEmptyDiff(diffSchemas(model, model))).toBe(true);
    // What the API stores and returns survives JSON as it is.
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });
});

describe.skipIf(!pgUp)('PostgreSQL: out-of-band changes', () => {
  let target: Awaited<ReturnType<typeof loaded>>;
  beforeAll(async () => {
    target = await loaded(readFixture('lending-library', 'postgres.sql'));
  });
  afterAll(async () => {
    await target?.close();
  });

  it('introspects the fixture as it was written, the same twice', async () => {
    const model = await target.handle.introspect();
    expect(model.tables.map(tableKey)).toEqual([
      'public.book',
      'public.branch',
      'public.librarian',
      'public.loan',
      'public.loan_archive',
      'public.member',
    ]);
    expect(column(model, 'public.book', 'format')).toMatchObject({
      type: 'public.book_format',
      nullable: false,
      default_normalized: "'paperback'",
    });
    expect(model.enums.map((e) => [e.name, e.values])).toEqual([
      ['book_format', ['hardcover', 'paperback', 'ebook', 'audio']],
    ]);
    expect(table(model, 'public.loan').foreign_keys.map((fk) => [fk.referenced_table, fk.on_delete])).toEqual(
      [
        ['book', 'no action'],
        ['branch', 'no action'],
        ['member', 'cascade'],
      ],
    );
    expect(table(model, 'public.loan').indexes.find((i) => i.name === 'loan_open_idx')).toMatchObject({
      columns: ['due_on'],
      unique: false,
      predicate: expect.stringContaining('returned_at IS NULL'),
    });
    const unmanaged = model.unmanaged.map((o) => `${o.kind} ${o.name}${o.table ? ` on ${o.table}` : ''}`);
    expect(unmanaged).toEqual(
      expect.arrayContaining(['view overdue_loans', 'trigger member_touch on member']),
    );
    const again = await target.handle.introspect();
    expect(schemaHash(again)).toBe(schemaHash(model));
    expect(isEmptyDiff(diffSchemas(model, again))).toBe(true);
  });

  // Each step starts from the schema the previous one left: the diff must name that one change.
  it.each([
    [
      'drop column',
      'alter table member drop column updated_at',
      [['public.member', 'column_removed', 'updated_at', 'critical']],
    ],
    [
      'alter type',
      'alter table librarian alter column login type varchar(32)',
      [['public.librarian', 'column_type_changed', 'login', 'moderate']],
    ],
    [
      'add index',
      'create index librarian_email_idx on librarian (email)',
      [['public.librarian', 'index_added', 'librarian_email_idx', 'minor']],
    ],
    [
      'add nullable column',
      'alter table librarian add column nickname text',
      [['public.librarian', 'column_added', 'nickname', 'minor']],
    ],
    [
      'drop table',
      'drop table loan_archive',
      [['public.loan_archive', 'table_removed', 'public.loan_archive', 'critical']],
    ],
    [
      'change default',
      'alter table book alter column loan_days set default 21',
      [['public.book', 'column_default_changed', 'loan_days', 'minor']],
    ],
    [
      'add foreign key',
      'alter table branch add constraint branch_head_fk foreign key (head_librarian_id) references librarian (librarian_id)',
      [['public.branch', 'foreign_key_added', 'branch_head_fk', 'minor']],
    ],
    [
      'set not null',
      'alter table librarian alter column email set not null',
      [['public.librarian', 'column_not_null_added', 'email', 'moderate']],
    ],
    [
      'drop foreign key',
      'alter table branch drop constraint branch_head_fk',
      [['public.branch', 'foreign_key_removed', 'branch_head_fk', 'moderate']],
    ],
  ])('reports an out-of-band %s with its kind and severity', async (_name, sql, expected) => {
    const before = await target.handle.introspect();
    await target.run(sql);
    const after = await target.handle.introspect();
    expect(diffRows(diffSchemas(before, after))).toEqual(expected);
  });

  it('does not report the leftovers of gh-ost, pt-osc, REINDEX CONCURRENTLY or this service', async () => {
    const before = await target.handle.introspect();
    await target.run(`
      create table _member_gho (like member including all);
      create table _member_ghc (id bigint primary key, hint text);
      create table _member_del (like member);
      create table _member_new (like member including all);
      create table _member_old (like member);
      create index member_last_name_idx_ccnew on member (last_name);
      create index member_last_name_idx_ccold1 on member (last_name);
      create schema dbops_backup;
      create table dbops_backup.patch_1_member as select * from member;
      create table lock_probe (v int);
      insert into lock_probe values (1), (1);
    `);
    // A failed CREATE INDEX CONCURRENTLY leaves an invalid index under its own name.
    await expect(
      target.run('create unique index concurrently lock_probe_v on lock_probe (v)'),
    ).rejects.toThrow();
    const after = await target.handle.introspect();
    expect(diffRows(diffSchemas(before, after))).toEqual([
      ['public.lock_probe', 'table_added', 'public.lock_probe', 'minor'],
    ]);
    expect(table(after, 'public.lock_probe').indexes).toEqual([]);
  });
});

describe.skipIf(!pgUp)('PostgreSQL: defaults after ALTER COLUMN TYPE', () => {
  it('reports a varchar with a default turned text as a type change only', async () => {
    const target = await loaded(
      "create table notes (body varchar(10) default 'bar', kind varchar(5) default 'x'::character varying);",
    );
    try {
      const before = await target.handle.introspect();
      await target.run(
        "alter table notes alter column body type text; create table fresh (body text default 'bar');",
      );
      const after = await target.handle.introspect();
      // The trap of a retype: the old cast survives the ALTER in the column's default.
      expect(column(after, 'public.notes', 'body').default).toBe("'bar'::character varying");
      expect(column(after, 'public.fresh', 'body').default).toBe("'bar'::text");
      expect(column(after, 'public.notes', 'body').default_normalized).toBe(
        column(after, 'public.fresh', 'body').default_normalized,
      );
      expect(diffRows(diffSchemas(before, after))).toEqual([
        ['public.fresh', 'table_added', 'public.fresh', 'minor'],
        ['public.notes', 'column_type_changed', 'body', 'moderate'],
      ]);
    } finally {
      await target.close();
    }
  });
});

describe.skipIf(!pgUp || !corpusUp)('PostgreSQL: Chinook', () => {
  it('introspects, hashes the same twice, and is equal to itself', async () => {
    const target = await loaded(readCorpus('chinook', 'postgres.sql'));
    try {
      const model = await target.handle.introspect();
      expect(model.tables.map(tableKey)).toEqual([
        'public.album',
        'public.artist',
        'public.customer',
        'public.employee',
        'public.genre',
        'public.invoice',
        'public.invoice_line',
        'public.media_type',
        'public.playlist',
        'public.playlist_track',
        'public.track',
      ]);
      expect(table(model, 'public.playlist_track').primary_key?.columns).toEqual(['playlist_id', 'track_id']);
      expect(table(model, 'public.track').foreign_keys.map((fk) => fk.referenced_table)).toEqual([
        'album',
        'genre',
        'media_type',
      ]);
      const again = await target.handle.introspect();
      expect(schemaHash(again)).toBe(schemaHash(model));
      expect(isEmptyDiff(diffSchemas(model, again))).toBe(true);
    } finally {
      await target.close();
    }
  });
});

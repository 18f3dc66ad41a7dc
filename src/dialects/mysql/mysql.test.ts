// MySQL/MariaDB introspection: Sakila and Chinook from the external corpus (CORPUS_DIR); scripted
// out-of-band changes and the leftovers of online schema change tools on a fixture of our own; and
// MariaDB's own catalog formats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusAvailable, loadMysqlSql, readCorpus } from '../../../test/support/corpus.ts';
import { reportSkipped } from '../../../test/support/databases.ts';
import { readFixture } from '../../../test/support/fixtures.ts';
import {
  createTestMysqlDatabase,
  mysqlAvailable,
  type TestMysqlDatabase,
  testMysqlUrl,
} from '../../../test/support/mysql.ts';
import { diffRows } from '../../../test/support/schema-models.ts';
import { targetConfig } from '../../../test/support/targets.ts';
import { diffSchemas, isEmptyDiff } from '../../engine/schema/diff.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { TargetHandle } from '../dialect.ts';
import { mysqlDialect } from './mysql.dialect.ts';

const mysqlUp = await mysqlAvailable();
if (!mysqlUp)
  reportSkipped('MySQL/MariaDB introspection (src/dialects/mysql/mysql.test.ts)', 'MySQL', testMysqlUrl);

async function loaded(sql: string, options: { dropQualifier?: string } = {}) {
  const database = (await createTestMysqlDatabase()) as TestMysqlDatabase;
  let handle: TargetHandle;
  try {
    await loadMysqlSql(database.url, sql, options);
    handle = await mysqlDialect.open(targetConfig(database.url));
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    database,
    handle,
    run: (statements: string) => loadMysqlSql(database.url, statements),
    async close() {
      await handle.close();
      await database.drop();
    },
  };
}

const table = (model: SchemaModel, name: string) => {
  const found = model.tables.find((t) => t.name === name);
  if (!found) throw new Error(`no table ${name}`);
  return found;
};
const column = (model: SchemaModel, tableName: string, name: string) =>
  table(model, tableName).columns.find((c) => c.name === name)!;

const corpusUp = corpusAvailable(
  'MySQL introspection of Sakila and Chinook (src/dialects/mysql/mysql.test.ts)',
);

describe.skipIf(!mysqlUp || !corpusUp)('MySQL/MariaDB: Sakila', () => {
  let target: Awaited<ReturnType<typeof loaded>>;
  beforeAll(async () => {
    target = await loaded(readCorpus('sakila', 'mysql-schema.sql'), { dropQualifier: 'sakila' });
  });
  afterAll(async () => {
    await target?.close();
  });

  it('introspects the whole schema into the model, the same twice, and equal to itself', async () => {
    const started = performance.now();
    const model = await target.handle.introspect();
    const elapsed = performance.now() - started;
    console.info(
      `Sakila introspection on ${target.handle.flavor} ${target.handle.serverVersion}: ${elapsed.toFixed(1)} ms`,
    );

    expect(model.dialect).toBe('mysql');
    expect(model.flavor).toBe(/mariadb/i.test(target.handle.serverVersion) ? 'mariadb' : 'mysql');
    expect(model.tables.map((t) => t.name)).toEqual([
      'actor',
      'address',
      'category',
      'city',
      'country',
      'customer',
      'film',
      'film_actor',
      'film_category',
      'film_text',
      'inventory',
      'language',
      'payment',
      'rental',
      'staff',
      'store',
    ]);
    expect(model.tables.every((t) => t.schema === null)).toBe(true);

    expect(column(model, 'film', 'film_id')).toMatchObject({
      type: 'int unsigned',
      nullable: false,
      auto_increment: true,
      default: null,
    });
    expect(column(model, 'film', 'rating')).toMatchObject({
      type: "enum('G','PG','PG-13','R','NC-17')",
      default_normalized: "'G'",
      collation: expect.stringMatching(/^utf8(mb3)?_general_ci$/),
    });
    expect(column(model, 'film', 'rental_rate')).toMatchObject({
      type: 'decimal(4,2)',
      default_normalized: '4.99',
    });
    expect(column(model, 'film', 'release_year').type).toBe('year');
    expect(column(model, 'film', 'last_update')).toMatchObject({
      type: 'timestamp',
      default_normalized: 'current_timestamp',
      on_update: 'current_timestamp',
    });
    expect(column(model, 'film', 'original_language_id')).toMatchObject({
      nullable: true,
      default_normalized: null,
    });
    expect(column(model, 'staff', 'active')).toMatchObject({ type: 'tinyint(1)', default_normalized: '1' });

    const film = table(model, 'film');
    expect(film.primary_key).toEqual({
      name: 'PRIMARY',
      columns: ['film_id'],
      deferrable: false,
      initially_deferred: false,
    });
    expect(
      film.foreign_keys.map((fk) => [
        fk.name,
        fk.columns,
        fk.referenced_schema,
        fk.referenced_table,
        fk.on_update,
        fk.on_delete,
      ]),
    ).toEqual([
      ['fk_film_language', ['language_id'], null, 'language', 'cascade', 'restrict'],
      ['fk_film_language_original', ['original_language_id'], null, 'language', 'cascade', 'restrict'],
    ]);
    expect(table(model, 'film_text').indexes).toEqual([
      {
        name: 'idx_title_description',
        columns: ['title', 'description'],
        include: [],
        unique: false,
        method: 'fulltext',
        predicate: null,
      },
    ]);
    expect(table(model, 'rental').indexes.find((i) => i.unique)).toMatchObject({
      name: 'rental_date',
      columns: ['rental_date', 'inventory_id', 'customer_id'],
    });

    const unmanaged = model.unmanaged.map((o) => `${o.kind} ${o.name}${o.table ? ` on ${o.table}` : ''}`);
    expect(unmanaged).toEqual(
      expect.arrayContaining([
        'view actor_info',
        'procedure rewards_report',
        'function get_customer_balance',
        'trigger ins_film on film',
      ]),
    );

    const again = await target.handle.introspect();
    expect(schemaHash(again)).toBe(schemaHash(model));
    expect(isEmptyDiff(diffSchemas(model, again))).toBe(true);
    expect(isEmptyDiff(diffSchemas(model, model))).toBe(true);
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });
});

describe.skipIf(!mysqlUp)('MySQL/MariaDB: out-of-band changes', () => {
  let target: Awaited<ReturnType<typeof loaded>>;
  beforeAll(async () => {
    target = await loaded(readFixture('lending-library', 'mysql.sql'));
  });
  afterAll(async () => {
    await target?.close();
  });

  it('introspects the fixture as it was written, the same twice', async () => {
    const model = await target.handle.introspect();
    expect(model.tables.map((t) => t.name)).toEqual([
      'book',
      'branch',
      'librarian',
      'loan',
      'loan_archive',
      'member',
    ]);
    expect(column(model, 'book', 'format')).toMatchObject({
      type: "enum('hardcover','paperback','ebook','audio')",
      default_normalized: "'paperback'",
    });
    expect(column(model, 'member', 'updated_at')).toMatchObject({
      default_normalized: 'current_timestamp',
      on_update: 'current_timestamp',
    });
    expect(column(model, 'loan', 'loan_id')).toMatchObject({ type: 'bigint unsigned', auto_increment: true });
    expect(table(model, 'loan').foreign_keys.map((fk) => [fk.name, fk.on_delete])).toEqual([
      ['fk_loan_book', 'restrict'],
      ['fk_loan_branch', 'restrict'],
      ['fk_loan_member', 'cascade'],
    ]);
    const unmanaged = model.unmanaged.map((o) => `${o.kind} ${o.name}${o.table ? ` on ${o.table}` : ''}`);
    expect(unmanaged).toEqual(
      expect.arrayContaining(['view overdue_loans', 'trigger loan_archive_on_return on loan']),
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
      [['member', 'column_removed', 'updated_at', 'critical']],
    ],
    [
      'alter type',
      'alter table librarian modify login varchar(32) not null',
      [['librarian', 'column_type_changed', 'login', 'moderate']],
    ],
    [
      'add index',
      'create index librarian_email on librarian (email)',
      [['librarian', 'index_added', 'librarian_email', 'minor']],
    ],
    [
      'add nullable column',
      'alter table librarian add column buddy_id int unsigned null',
      [['librarian', 'column_added', 'buddy_id', 'minor']],
    ],
    [
      'drop table',
      'drop table loan_archive',
      [['loan_archive', 'table_removed', 'loan_archive', 'critical']],
    ],
    [
      'change default',
      'alter table book alter column loan_days set default 21',
      [['book', 'column_default_changed', 'loan_days', 'minor']],
    ],
    // InnoDB adds an index for buddy_id with the key: not reported (InnoDB's own, not a change).
    [
      'add foreign key',
      'alter table librarian add constraint fk_librarian_buddy foreign key (buddy_id) references librarian (librarian_id)',
      [['librarian', 'foreign_key_added', 'fk_librarian_buddy', 'minor']],
    ],
    [
      'set not null',
      'alter table librarian modify email varchar(80) not null',
      [['librarian', 'column_not_null_added', 'email', 'moderate']],
    ],
    [
      'drop foreign key',
      'alter table librarian drop foreign key fk_librarian_buddy',
      [['librarian', 'foreign_key_removed', 'fk_librarian_buddy', 'moderate']],
    ],
  ])('reports an out-of-band %s with its kind and severity', async (_name, sql, expected) => {
    const before = await target.handle.introspect();
    await target.run(sql);
    const after = await target.handle.introspect();
    expect(diffRows(diffSchemas(before, after))).toEqual(expected);
  });

  it('kept, unreported, the index InnoDB made for the foreign key added above', async () => {
    const model = await target.handle.introspect();
    expect(table(model, 'librarian').indexes.filter((i) => i.columns[0] === 'buddy_id')).toHaveLength(1);
  });

  it('does not report the leftovers of gh-ost, pt-osc, Vitess or this service', async () => {
    const before = await target.handle.introspect();
    await target.run(`
      create table _member_gho like member;
      create table _member_ghc (id bigint primary key, hint text);
      create table _member_del like member;
      create table _member_new like member;
      create table _member_old like member;
      create table _vt_hld_6ace8bcef73211ea87e9f875a4d24e90_20200915120410 like member;
      create table _dbops_bak_member_1 like member;
      create table keep_me (id int primary key);
      create trigger pt_osc_${target.database.name}_member_ins after insert on member for each row
        replace into _member_new (member_id, first_name, last_name) values (new.member_id, new.first_name, new.last_name);
    `);
    const after = await target.handle.introspect();
    expect(diffRows(diffSchemas(before, after))).toEqual([['keep_me', 'table_added', 'keep_me', 'minor']]);
    expect(after.unmanaged.filter((o) => o.kind === 'trigger').map((o) => o.name)).not.toContain(
      `pt_osc_${target.database.name}_member_ins`,
    );
  });
});

describe.skipIf(!mysqlUp)('MySQL/MariaDB: catalog formats', () => {
  it('reads json, display widths, quoted and expression defaults into the neutral forms', async () => {
    const target = await loaded(`
      create table formats (
        id int not null auto_increment primary key,
        doc json,
        body longtext,
        label varchar(10) default 'it''s',
        empty varchar(5) default '',
        score double default 1e3,
        flags bit(3) default b'101',
        total int default (1 + 2),
        created datetime(3) default current_timestamp(3) on update current_timestamp(3),
        n int,
        doubled int as (n * 2) stored,
        halved int as (n / 2) virtual,
        constraint positive_score check (score >= 0),
        unique key uq_label (label),
        key idx_body (body(20))
      )`);
    try {
      const model = await target.handle.introspect();
      const formats = table(model, 'formats');
      const col = (name: string) => formats.columns.find((c) => c.name === name)!;
      expect(col('id')).toMatchObject({ type: 'int', auto_increment: true });
      expect(col('doc')).toMatchObject({ type: 'json', default_normalized: null });
      expect(col('body').type).toBe('longtext');
      expect(col('label').default_normalized).toBe("'it''s'");
      expect(col('empty').default_normalized).toBe("''");
      expect(col('score').default_normalized).toBe('1000');
      expect(col('flags').default_normalized).toBe("b'101'");
      expect(col('total').default_normalized).toBe('1 + 2');
      expect(col('created')).toMatchObject({
        default_normalized: 'current_timestamp(3)',
        on_update: 'current_timestamp(3)',
      });
      expect(col('doubled').generated).toEqual({ expression: expect.stringContaining('* 2'), stored: true });
      expect(col('halved').generated?.stored).toBe(false);
      // MariaDB's json_valid() check of `doc` is part of the json type, not a constraint.
      expect(formats.check_constraints.map((c) => c.name)).toEqual(['positive_score']);
      expect(formats.indexes).toEqual([
        {
          name: 'idx_body',
          columns: ['body(20)'],
          include: [],
          unique: false,
          method: 'btree',
          predicate: null,
        },
        { name: 'uq_label', columns: ['label'], include: [], unique: true, method: 'btree', predicate: null },
      ]);
    } finally {
      await target.close();
    }
  });
});

describe.skipIf(!mysqlUp || !corpusUp)('MySQL/MariaDB: Chinook', () => {
  it('introspects, hashes the same twice, and is equal to itself', async () => {
    const target = await loaded(readCorpus('chinook', 'mysql.sql'));
    try {
      const model = await target.handle.introspect();
      expect(model.tables.map((t) => t.name)).toEqual([
        'Album',
        'Artist',
        'Customer',
        'Employee',
        'Genre',
        'Invoice',
        'InvoiceLine',
        'MediaType',
        'Playlist',
        'PlaylistTrack',
        'Track',
      ]);
      expect(table(model, 'PlaylistTrack').primary_key?.columns).toEqual(['PlaylistId', 'TrackId']);
      expect(table(model, 'Track').foreign_keys.map((fk) => fk.referenced_table)).toEqual([
        'Album',
        'Genre',
        'MediaType',
      ]);
      expect(table(model, 'Album').indexes.map((i) => i.name)).toContain('IFK_AlbumArtistId');
      const again = await target.handle.introspect();
      expect(schemaHash(again)).toBe(schemaHash(model));
      expect(isEmptyDiff(diffSchemas(model, again))).toBe(true);
    } finally {
      await target.close();
    }
  });
});

// MySQL 8 prints its catalog differently from MariaDB. Without a MySQL 8 server at hand, these are
// information_schema rows as MySQL 8.0 returns them, next to MariaDB 10.11's rows for the same
// declarations: both must give the same model.
import { describe, expect, it } from 'vitest';
import { diffSchemas, isEmptyDiff } from '../../engine/schema/diff.ts';
import type { CatalogRows, ColumnRow } from './mysql.catalog.ts';
import { flavorOf } from './mysql.dialect.ts';
import { buildMysqlModel, parseExtra } from './mysql.model.ts';

const col = (column_name: string, ordinal_position: number, fields: Partial<ColumnRow>): ColumnRow => ({
  table_name: 'film',
  column_name,
  ordinal_position,
  column_default: null,
  is_nullable: 'YES',
  data_type: 'int',
  column_type: 'int',
  collation_name: null,
  extra: '',
  column_comment: '',
  generation_expression: '',
  ...fields,
});

const utf8 = 'utf8mb4_0900_ai_ci';

// CREATE TABLE film (
//   film_id smallint unsigned not null auto_increment primary key,
//   title varchar(128) not null,
//   rating enum('G','PG') default 'G',
//   rental_rate decimal(4,2) not null default 4.99,
//   active tinyint(1) not null default 1,
//   note varchar(10) default '',
//   meta json,
//   score double default (rand()),
//   title_len int as (char_length(title)) virtual,
//   last_update timestamp not null default current_timestamp on update current_timestamp,
//   check (rental_rate >= 0), key idx_title (title), unique key uq_rating (rating, title))
const mysql8Columns: ColumnRow[] = [
  col('film_id', 1, {
    is_nullable: 'NO',
    data_type: 'smallint',
    column_type: 'smallint unsigned',
    extra: 'auto_increment',
  }),
  col('title', 2, {
    is_nullable: 'NO',
    data_type: 'varchar',
    column_type: 'varchar(128)',
    collation_name: utf8,
  }),
  col('rating', 3, {
    column_default: 'G',
    data_type: 'enum',
    column_type: "enum('G','PG')",
    collation_name: utf8,
  }),
  col('rental_rate', 4, {
    is_nullable: 'NO',
    column_default: '4.99',
    data_type: 'decimal',
    column_type: 'decimal(4,2)',
  }),
  col('active', 5, {
    is_nullable: 'NO',
    column_default: '1',
    data_type: 'tinyint',
    column_type: 'tinyint(1)',
  }),
  col('note', 6, {
    column_default: '',
    data_type: 'varchar',
    column_type: 'varchar(10)',
    collation_name: utf8,
  }),
  col('meta', 7, { data_type: 'json', column_type: 'json' }),
  col('score', 8, {
    column_default: 'rand()',
    data_type: 'double',
    column_type: 'double',
    extra: 'DEFAULT_GENERATED',
  }),
  col('title_len', 9, {
    column_type: 'int',
    extra: 'VIRTUAL GENERATED',
    generation_expression: 'char_length(`title`)',
  }),
  col('last_update', 10, {
    is_nullable: 'NO',
    column_default: 'CURRENT_TIMESTAMP',
    data_type: 'timestamp',
    column_type: 'timestamp',
    extra: 'DEFAULT_GENERATED on update CURRENT_TIMESTAMP',
  }),
];

const mariaColumns: ColumnRow[] = [
  col('film_id', 1, {
    is_nullable: 'NO',
    data_type: 'smallint',
    column_type: 'smallint(5) unsigned',
    extra: 'auto_increment',
    generation_expression: null,
  }),
  col('title', 2, {
    is_nullable: 'NO',
    data_type: 'varchar',
    column_type: 'varchar(128)',
    collation_name: utf8,
    generation_expression: null,
  }),
  col('rating', 3, {
    column_default: "'G'",
    data_type: 'enum',
    column_type: "enum('G','PG')",
    collation_name: utf8,
    generation_expression: null,
  }),
  col('rental_rate', 4, {
    is_nullable: 'NO',
    column_default: '4.99',
    data_type: 'decimal',
    column_type: 'decimal(4,2)',
    generation_expression: null,
  }),
  col('active', 5, {
    is_nullable: 'NO',
    column_default: '1',
    data_type: 'tinyint',
    column_type: 'tinyint(1)',
    generation_expression: null,
  }),
  col('note', 6, {
    column_default: "''",
    data_type: 'varchar',
    column_type: 'varchar(10)',
    collation_name: utf8,
    generation_expression: null,
  }),
  col('meta', 7, {
    column_default: 'NULL',
    data_type: 'longtext',
    column_type: 'longtext',
    collation_name: 'utf8mb4_bin',
    generation_expression: null,
  }),
  col('score', 8, {
    column_default: 'rand()',
    data_type: 'double',
    column_type: 'double',
    generation_expression: null,
  }),
  col('title_len', 9, {
    column_type: 'int(11)',
    extra: 'VIRTUAL GENERATED',
    generation_expression: 'char_length(`title`)',
  }),
  col('last_update', 10, {
    is_nullable: 'NO',
    column_default: 'current_timestamp()',
    data_type: 'timestamp',
    column_type: 'timestamp',
    extra: 'on update current_timestamp()',
    generation_expression: null,
  }),
];

function rows(flavor: 'mysql' | 'mariadb', columns: ColumnRow[]): CatalogRows {
  const stat = (index_name: string, seq_in_index: number, column_name: string, non_unique: number) => ({
    table_name: 'film',
    index_name,
    non_unique,
    seq_in_index,
    column_name,
    sub_part: null,
    collation: 'A',
    index_type: 'BTREE',
    expression: null,
  });
  return {
    flavor,
    serverVersion: flavor === 'mysql' ? '8.0.36' : '10.11.6-MariaDB',
    tables: [{ table_name: 'film', table_type: 'BASE TABLE', table_comment: '' }],
    columns,
    statistics: [
      stat('PRIMARY', 1, 'film_id', 0),
      stat('idx_title', 1, 'title', 1),
      stat('uq_rating', 2, 'title', 0),
      stat('uq_rating', 1, 'rating', 0),
    ],
    foreignKeys: [],
    checks: [
      // MySQL 8 wraps the clause in parentheses, MariaDB does not.
      {
        table_name: 'film',
        constraint_name: 'film_chk_1',
        check_clause: flavor === 'mysql' ? '(`rental_rate` >= 0)' : '`rental_rate` >= 0',
        level: 'Table',
      },
      ...(flavor === 'mariadb'
        ? [
            {
              table_name: 'film',
              constraint_name: 'meta',
              check_clause: 'json_valid(`meta`)',
              level: 'Column' as const,
            },
          ]
        : []),
    ],
    unmanaged: [],
  };
}

describe('buildMysqlModel', () => {
  const mysql8 = buildMysqlModel(rows('mysql', mysql8Columns));
  const maria = buildMysqlModel(rows('mariadb', mariaColumns));

  it('reads MySQL 8 rows: bare literals quoted, expression defaults kept, widths absent', () => {
    const film = mysql8.tables[0]!;
    const byName = Object.fromEntries(film.columns.map((c) => [c.name, c]));
    expect(byName.film_id).toMatchObject({
      type: 'smallint unsigned',
      auto_increment: true,
      nullable: false,
    });
    expect(byName.rating).toMatchObject({ default: 'G', default_normalized: "'G'" });
    expect(byName.note?.default_normalized).toBe("''");
    expect(byName.active).toMatchObject({ type: 'tinyint(1)', default_normalized: '1' });
    expect(byName.score?.default_normalized).toBe('rand()');
    expect(byName.meta?.type).toBe('json');
    expect(byName.title_len?.generated).toEqual({ expression: 'char_length(`title`)', stored: false });
    expect(byName.last_update).toMatchObject({
      default_normalized: 'current_timestamp',
      on_update: 'current_timestamp',
    });
    expect(film.indexes.map((i) => [i.name, i.columns, i.unique])).toEqual([
      ['idx_title', ['title'], false],
      ['uq_rating', ['rating', 'title'], true],
    ]);
    expect(film.check_constraints).toEqual([{ name: 'film_chk_1', expression: '(`rental_rate` >= 0)' }]);
  });

  it('reads MariaDB rows for the same table into the same model', () => {
    const meta = maria.tables[0]!.columns.find((c) => c.name === 'meta')!;
    expect(meta.type).toBe('json');
    // The json column's collation and the printing of check clauses differ between the two servers
    // (a connection does not change server); everything else must agree.
    const withoutJsonCollation = (model: typeof maria) => ({
      ...model,
      tables: model.tables.map((t) => ({
        ...t,
        check_constraints: [],
        columns: t.columns.map((c) => (c.name === 'meta' ? { ...c, collation: null } : c)),
      })),
    });
    const diff = diffSchemas(withoutJsonCollation(mysql8), withoutJsonCollation(maria));
    expect(diff.tables_modified).toEqual([]);
    expect(isEmptyDiff(diff)).toBe(true);
  });

  it('keeps a table-level json_valid() check as a constraint', () => {
    const plain = rows('mariadb', mariaColumns);
    plain.checks.push({
      table_name: 'film',
      constraint_name: 'doc_ok',
      check_clause: 'json_valid(`note`)',
      level: 'Table',
    });
    const model = buildMysqlModel(plain);
    expect(model.tables[0]!.check_constraints.map((c) => c.name)).toEqual(['doc_ok', 'film_chk_1']);
    expect(model.tables[0]!.columns.find((c) => c.name === 'note')?.type).toBe('varchar(10)');
  });

  it('leaves the database’s own name out of a sequence default, and reads an ignored index', () => {
    const recorded = rows('mariadb', [
      ...mariaColumns,
      col('ticket', 20, {
        data_type: 'bigint',
        column_type: 'bigint(20)',
        column_default: 'nextval(`shop`.`ticket_seq`)',
        current_schema: 'shop',
      }),
    ]);
    recorded.statistics[1] = { ...recorded.statistics[1]!, ignored: '1' };
    const film = buildMysqlModel(recorded).tables[0]!;
    expect(film.columns.find((c) => c.name === 'ticket')?.default).toBe('nextval(`ticket_seq`)');
    expect(film.indexes.find((i) => i.name === 'idx_title')).toMatchObject({ ignored: true });
    expect(film.indexes.find((i) => i.name === 'uq_rating')).not.toHaveProperty('ignored');
  });

  it('lists views, routines, triggers and events as unmanaged', () => {
    const recorded = rows('mysql', mysql8Columns);
    recorded.tables.push({ table_name: 'film_list', table_type: 'VIEW', table_comment: 'VIEW' });
    recorded.unmanaged.push(
      { kind: 'procedure', name: 'rewards_report', table_name: null },
      { kind: 'trigger', name: 'ins_film', table_name: 'film' },
    );
    expect(buildMysqlModel(recorded).unmanaged).toEqual([
      { kind: 'procedure', schema: null, name: 'rewards_report', table: null },
      { kind: 'trigger', schema: null, name: 'ins_film', table: 'film' },
      { kind: 'view', schema: null, name: 'film_list', table: null },
    ]);
  });
});

describe('parseExtra', () => {
  it.each([
    ['auto_increment', { autoIncrement: true, defaultGenerated: false, onUpdate: null, generated: null }],
    [
      'DEFAULT_GENERATED on update CURRENT_TIMESTAMP(3)',
      { autoIncrement: false, defaultGenerated: true, onUpdate: 'CURRENT_TIMESTAMP(3)', generated: null },
    ],
    [
      'on update current_timestamp()',
      { autoIncrement: false, defaultGenerated: false, onUpdate: 'current_timestamp()', generated: null },
    ],
    [
      'STORED GENERATED',
      { autoIncrement: false, defaultGenerated: false, onUpdate: null, generated: 'stored' },
    ],
    [
      'VIRTUAL GENERATED INVISIBLE',
      { autoIncrement: false, defaultGenerated: false, onUpdate: null, generated: 'virtual' },
    ],
  ])('%s', (extra, expected) => {
    expect(parseExtra(extra)).toEqual(expected);
  });
});

describe('flavorOf', () => {
  it('detects MariaDB from the version string', () => {
    expect(flavorOf('10.11.19-MariaDB-0+deb12u1')).toBe('mariadb');
    expect(flavorOf('5.5.5-10.6.16-MariaDB')).toBe('mariadb');
    expect(flavorOf('8.0.36')).toBe('mysql');
    expect(flavorOf('8.4.0-commercial')).toBe('mysql');
  });
});

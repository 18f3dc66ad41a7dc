import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { mysqlRowFormat, mysqlValueKind } from '../../dialects/mysql/mysql.rows.ts';
import { postgresRowFormat, postgresValueKind } from '../../dialects/postgres/postgres.rows.ts';
import { planCopy, resolveTables } from './copy-plan.ts';
import { translateTable } from './translate-table.ts';

const fk = (name: string, columns: string[], table: string, referenced: string[]) => ({
  name,
  columns,
  referenced_schema: null,
  referenced_table: table,
  referenced_columns: referenced,
  on_update: 'no action' as const,
  on_delete: 'no action' as const,
  deferrable: false,
  initially_deferred: false,
});

const pk = (columns: string[]) => ({ name: 'pk', columns, deferrable: false, initially_deferred: false });

const customer = makeTable('customer', {
  columns: [makeColumn('id'), makeColumn('name', { type: 'text' }), makeColumn('tags', { type: 'text[]' })],
  primary_key: pk(['id']),
});
const orders = makeTable('orders', {
  columns: [makeColumn('id'), makeColumn('customer_id')],
  primary_key: pk(['id']),
  foreign_keys: [
    { ...fk('orders_customer', ['customer_id'], 'customer', ['id']), referenced_schema: 'public' },
  ],
});
const source = makeSchema([orders, customer]);

const pgKinds = { source: postgresValueKind, target: postgresValueKind, refusal: () => null };

describe('the copy plan', () => {
  it('resolves bare and qualified names, and refuses unknown and missing tables at their place', () => {
    const target = makeSchema([customer]);
    expect(resolveTables(source, target, { tables: ['customer', 'public.orders', 'nope'] }).problems).toEqual(
      [
        {
          loc: ['body', 'tables', 1],
          message: expect.stringMatching(/target has no table public.orders.*create_tables/),
        },
        { loc: ['body', 'tables', 2], message: 'Unknown table nope in the source' },
      ],
    );
    expect(resolveTables(source, target, {}).tables.map((t) => t.name)).toEqual(['customer']);
    expect(resolveTables(source, target, { create_tables: true }).tables.map((t) => t.name)).toEqual([
      'orders',
      'customer',
    ]);
  });

  it('orders parents first, matches columns by name and names what it skips', () => {
    const target = makeSchema([
      makeTable('customer', { columns: [makeColumn('id'), makeColumn('name', { type: 'text' })] }),
      makeTable('orders', {
        columns: [
          makeColumn('id'),
          makeColumn('customer_id'),
          makeColumn('total', { generated: { expression: '1', stored: true } }),
        ],
      }),
    ]);
    const plan = planCopy(source, target, source.tables, pgKinds);
    expect(plan.problems).toEqual([]);
    expect(plan.tables.map((t) => [t.name, t.columns, t.skippedColumns])).toEqual([
      ['public.customer', ['id', 'name'], ['tags']],
      ['public.orders', ['id', 'customer_id'], []],
    ]);
  });

  it('stops before writing on a NOT NULL target column the source lacks, and on arrays for MySQL', () => {
    const target = makeSchema(
      [
        makeTable('customer', {
          schema: null,
          columns: [
            makeColumn('id', { type: 'int' }),
            makeColumn('tags', { type: 'json' }),
            makeColumn('code', { type: 'int', nullable: false }),
          ],
        }),
      ],
      { dialect: 'mysql', flavor: 'mariadb' },
    );
    const plan = planCopy(source, target, [customer], {
      source: postgresValueKind,
      target: mysqlValueKind,
      refusal: mysqlRowFormat.refusal,
    });
    expect(plan.problems).toEqual([
      expect.stringMatching(
        /^public.customer.tags: a PostgreSQL array cannot be stored in a MySQL column \(json\)/,
      ),
      'The target column customer.code is NOT NULL without a default and the source has no such column',
    ]);
  });
});

describe('tables translated for another engine', () => {
  it('maps types, renames keys per table, quotes key parts for PostgreSQL and drops engine-specific SQL', () => {
    const mysqlTable = makeTable('Album', {
      schema: null,
      columns: [
        makeColumn('AlbumId', { type: 'int', auto_increment: true, nullable: false }),
        makeColumn('Title', { type: 'varchar(160)', default: "'x'" }),
        makeColumn('Flag', { type: 'tinyint(1)' }),
      ],
      primary_key: { ...pk(['AlbumId']), name: 'PRIMARY' },
      indexes: [makeIndex('IFK_Title', ['Title']), makeIndex('by_expr', ['(lower(Title))'])],
      check_constraints: [{ name: 'c', expression: 'AlbumId > 0' }],
    });
    const translated = translateTable(mysqlTable, {
      from: 'mysql',
      to: 'postgresql',
      rules: postgresRowFormat.createdTables,
      kindOf: mysqlValueKind,
      columnType: (kind, type) =>
        type === 'tinyint(1)'
          ? 'boolean'
          : type === 'int'
            ? 'integer'
            : kind === 'text'
              ? 'character varying(160)'
              : type,
      schemaOf: () => 'public',
    });
    expect(translated.schema).toBe('public');
    expect(translated.columns.map((c) => [c.name, c.type, c.identity, c.default])).toEqual([
      ['AlbumId', 'integer', 'by_default', null],
      ['Title', 'character varying(160)', null, null],
      ['Flag', 'boolean', null, null],
    ]);
    expect(translated.primary_key?.name).toBe('Album_pkey');
    expect(translated.indexes).toEqual([makeIndex('Album_IFK_Title', ['"Title"'])]);
    expect(translated.check_constraints).toEqual([]);
  });

  it('gives MySQL a bounded type for a text column it must index', () => {
    const pgTable = makeTable('t', {
      columns: [makeColumn('code', { type: 'text' }), makeColumn('body', { type: 'text' })],
      primary_key: pk(['code']),
    });
    const translated = translateTable(pgTable, {
      from: 'postgresql',
      to: 'mysql',
      rules: mysqlRowFormat.createdTables,
      kindOf: postgresValueKind,
      columnType: mysqlRowFormat.columnType,
      schemaOf: () => null,
    });
    expect(translated.columns.map((c) => c.type)).toEqual(['varchar(255)', 'longtext']);
  });
});

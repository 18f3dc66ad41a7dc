import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { analyzeSql } from '../../engine/migration/edit.ts';
import { postgresDialect } from './postgres.dialect.ts';
import { parsePostgresSql } from './postgres.sql.ts';

describe('PostgreSQL SQL parsing (libpg-query)', () => {
  it('splits where the parser says, keeping quoted semicolons, dollar quotes and multibyte text', async () => {
    // A comment between statements belongs to neither.
    const parsed = await parsePostgresSql(
      "ALTER TABLE t ADD COLUMN a text DEFAULT 'é;x';\n-- a comment; still a comment\nCOMMENT ON TABLE t IS $$a;b$$;  SELECT 1",
    );
    expect(parsed.map((s) => s.sql)).toEqual([
      "ALTER TABLE t ADD COLUMN a text DEFAULT 'é;x'",
      'COMMENT ON TABLE t IS $$a;b$$',
      'SELECT 1',
    ]);
    expect(parsed.every((s) => s.error === null)).toBe(true);
  });

  it('turns a statement that does not parse into an error, and parses the others', async () => {
    const parsed = await parsePostgresSql('CREATE TABLE a (id int); selec * from nowhere; DROP TABLE b;');
    expect(parsed.map((s) => [s.sql, s.error === null])).toEqual([
      ['CREATE TABLE a (id int)', true],
      ['selec * from nowhere', false],
      ['DROP TABLE b', true],
    ]);
    expect(parsed[1]).toMatchObject({ facts: null, error: expect.stringContaining('syntax error') });
    // An unterminated string swallows the rest: one bad statement, the good ones before it kept.
    const unterminated = await parsePostgresSql(
      "DROP TABLE a; ALTER TABLE b ADD COLUMN c text DEFAULT 'oops; DROP TABLE d;",
    );
    expect(unterminated.map((s) => [s.sql, s.error === null])).toEqual([
      ['DROP TABLE a', true],
      ["ALTER TABLE b ADD COLUMN c text DEFAULT 'oops; DROP TABLE d;", false],
    ]);
    expect(await parsePostgresSql('')).toEqual([]);
  });

  it('reads what a statement does', async () => {
    const [alter, index, drop, rename, set, begin] = await parsePostgresSql(`
      ALTER TABLE s.t ADD COLUMN a bigserial, ADD COLUMN b int NOT NULL DEFAULT random()::int,
        ALTER COLUMN c TYPE timestamp(3) with time zone, ALTER COLUMN d SET NOT NULL, DROP COLUMN e,
        ADD CONSTRAINT f FOREIGN KEY (g) REFERENCES u (id) NOT VALID, ALTER COLUMN h DROP DEFAULT;
      CREATE UNIQUE INDEX CONCURRENTLY i ON t (a);
      DROP INDEX CONCURRENTLY IF EXISTS s.i;
      ALTER TABLE t RENAME COLUMN a TO b;
      SET lock_timeout = '5s';
      BEGIN;`);
    const t = { schema: 's', name: 't' };
    expect(alter!.facts).toEqual([
      {
        action: 'add_column',
        table: t,
        column: 'a',
        not_null: false,
        has_default: true,
        volatile_default: true,
        computed: true,
      },
      {
        action: 'add_column',
        table: t,
        column: 'b',
        not_null: true,
        has_default: true,
        volatile_default: true,
        computed: false,
      },
      { action: 'alter_column_type', table: t, column: 'c', from: null, to: 'timestamp(3) with time zone' },
      { action: 'set_not_null', table: t, column: 'd' },
      { action: 'drop_column', table: t, column: 'e', backed_up: false },
      {
        action: 'add_constraint',
        table: t,
        constraint: 'foreign_key',
        name: 'f',
        columns: ['g'],
        not_valid: true,
      },
      { action: 'drop_default', table: t, column: 'h' },
    ]);
    expect(index).toMatchObject({
      transactional: false,
      facts: [{ action: 'create_index', name: 'i', unique: true, concurrently: true }],
    });
    expect(drop).toMatchObject({
      transactional: false,
      facts: [{ action: 'drop_index', name: 'i', concurrently: true }],
    });
    expect(rename!.facts).toEqual([
      { action: 'rename_column', table: { schema: null, name: 't' }, column: 'a', to: 'b' },
    ]);
    expect(set!.facts).toEqual([{ action: 'set_lock_timeout' }]);
    expect(begin).toMatchObject({ transactional: false, facts: [{ action: 'transaction_control' }] });
  });

  it('gives the same key to the same statement however it is written', async () => {
    const [a, b, c] = await parsePostgresSql(
      'ALTER TABLE "t" ADD COLUMN "a" integer; alter   table t\n add column a INTEGER -- why\n; ALTER TABLE t ADD COLUMN b integer',
    );
    expect(a!.key).toBe(b!.key);
    expect(a!.key).not.toBe(c!.key);
  });
});

describe('edited PostgreSQL SQL: derived rollback', () => {
  const target = makeSchema([
    makeTable('t', {
      columns: [
        makeColumn('a', {
          type: 'character varying(20)',
          default: "'x'::character varying",
          default_normalized: "'x'",
        }),
        makeColumn('b', { nullable: false }),
      ],
      indexes: [makeIndex('t_b', ['b'])],
      check_constraints: [{ name: 'b_positive', expression: 'b > 0' }],
    }),
  ]);
  const rollback = async (sql: string) =>
    (await analyzeSql(sql, { dialect: postgresDialect, target })).statements.map((s) => s.rollback_sql);

  it('undoes creations, renames, type, default and nullability changes from the target schema', async () => {
    expect(
      await rollback(`
        CREATE TABLE n (id int);
        ALTER TABLE t ADD COLUMN c int;
        CREATE INDEX t_c ON t (c);
        ALTER TABLE t RENAME COLUMN a TO aa;
        ALTER TABLE t ALTER COLUMN a TYPE text;
        ALTER TABLE t ALTER COLUMN a SET DEFAULT 'y';
        ALTER TABLE t ALTER COLUMN b DROP NOT NULL;
        ALTER TABLE t DROP CONSTRAINT b_positive;
        DROP INDEX t_b;
        SET lock_timeout = '1s';`),
    ).toEqual([
      'DROP TABLE "n";',
      'ALTER TABLE "t" DROP COLUMN "c";',
      'DROP INDEX "public"."t_c";',
      'ALTER TABLE "t" RENAME COLUMN "aa" TO "a";',
      'ALTER TABLE "public"."t" ALTER COLUMN "a" TYPE character varying(20);',
      `ALTER TABLE "public"."t" ALTER COLUMN "a" SET DEFAULT 'x'::character varying;`,
      'ALTER TABLE "public"."t" ALTER COLUMN "b" SET NOT NULL;',
      'ALTER TABLE "public"."t" ADD CONSTRAINT "b_positive" CHECK (b > 0);',
      'CREATE INDEX "t_b" ON "public"."t" USING "btree" (b);',
      '',
    ]);
  });

  it('has none for drops, data changes and what it cannot tell; then the whole rollback is null', async () => {
    const analyzed = await analyzeSql(
      'ALTER TABLE t ADD COLUMN c int; DROP TABLE t; UPDATE t SET b = 1; garbage;',
      {
        dialect: postgresDialect,
        target,
      },
    );
    expect(analyzed.statements.map((s) => s.reversible)).toEqual([true, false, false, false]);
    expect(analyzed.statements.map((s) => s.kind)).toEqual([
      'add_column',
      'drop_table',
      'data_change',
      'unparsed',
    ]);
    expect(analyzed.rollback_sql).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { assembleMigration, planMigration } from '../../engine/migration/migration.ts';
import type { MigrationOperation } from '../../engine/migration/operations.ts';
import { postgresDdl } from './postgres.ddl.ts';

const context = { flavor: 'postgresql' as const };

describe('PostgreSQL DDL', () => {
  it('quotes every name and every literal, whatever they hold', () => {
    const table = { schema: 'we"ird', name: 'ta ble' };
    const ops: MigrationOperation[] = [
      {
        kind: 'add_column',
        table,
        column: makeColumn('co"l', { type: 'text', nullable: false, default: "'x'::text" }),
      },
      { kind: 'set_table_comment', table, before: null, after: "it's; DROP TABLE x; --" },
      {
        kind: 'create_enum',
        enum: { schema: 'public', name: 'mood', values: ["o'k", 'bad\\'], used_by: [] },
      },
    ];
    expect(postgresDdl.renderDdl(ops, context).map((s) => s.sql)).toEqual([
      `ALTER TABLE "we""ird"."ta ble" ADD COLUMN "co""l" text DEFAULT 'x'::text NOT NULL`,
      `COMMENT ON TABLE "we""ird"."ta ble" IS 'it''s; DROP TABLE x; --'`,
      `CREATE TYPE "public"."mood" AS ENUM ('o''k', E'bad\\\\')`,
    ]);
  });

  it('marks what cannot run in a transaction', () => {
    const table = { schema: 'public', name: 't' };
    const ops: MigrationOperation[] = [
      {
        kind: 'add_enum_value',
        enum: { schema: 'public', name: 'mood', values: ['a'], used_by: [] },
        value: 'b',
        before: null,
        after: 'a',
        uses: [],
      },
      { kind: 'create_index', table, index: makeIndex('i', ['a']), concurrently: true },
      { kind: 'create_index', table, index: makeIndex('j', ['b']), concurrently: false },
    ];
    expect(postgresDdl.renderDdl(ops, context).map((s) => [s.sql, s.transactional])).toEqual([
      [`ALTER TYPE "public"."mood" ADD VALUE 'b' AFTER 'a'`, false],
      ['CREATE INDEX CONCURRENTLY "i" ON "public"."t" USING "btree" (a)', false],
      ['CREATE INDEX "j" ON "public"."t" USING "btree" (b)', true],
    ]);
  });

  it('casts between enums through text, and leaves casts out between sizes of one type', () => {
    const table = { schema: 'public', name: 't' };
    const alter = (before: string, after: string): MigrationOperation => ({
      kind: 'alter_column',
      change: 'type',
      table,
      before: makeColumn('c', { type: before }),
      after: makeColumn('c', { type: after }),
    });
    expect(
      postgresDdl
        .renderDdl(
          [alter('public.a', 'public.b'), alter('character varying(5)', 'text'), alter('text', 'integer')],
          context,
        )
        .map((s) => s.sql),
    ).toEqual([
      'ALTER TABLE "public"."t" ALTER COLUMN "c" TYPE public.b USING "c"::text::public.b',
      'ALTER TABLE "public"."t" ALTER COLUMN "c" TYPE text',
      'ALTER TABLE "public"."t" ALTER COLUMN "c" TYPE integer USING "c"::integer',
    ]);
  });

  it('gives every statement its rollback, and the migration the reverse of them all', () => {
    const target = makeSchema([makeTable('t', { columns: [makeColumn('a', { type: 'integer' })] })]);
    const source = makeSchema([
      makeTable('t', {
        columns: [makeColumn('a', { type: 'bigint' }), makeColumn('b', { type: 'text' })],
        indexes: [makeIndex('t_b', ['b'])],
      }),
      makeTable('u', { columns: [makeColumn('id')], indexes: [makeIndex('u_id', ['id'])] }),
    ]);
    const migration = planMigration(source, target, postgresDdl);
    expect(migration.statements.map((s) => [s.sql, s.rollback_sql, s.part_of, s.lossy])).toEqual([
      ['CREATE TABLE "public"."u" (\n  "id" integer\n)', 'DROP TABLE "public"."u";', null, false],
      ['CREATE INDEX "u_id" ON "public"."u" USING "btree" (id)', '', 0, false],
      [
        'ALTER TABLE "public"."t" ALTER COLUMN "a" TYPE bigint',
        'ALTER TABLE "public"."t" ALTER COLUMN "a" TYPE integer;',
        null,
        true,
      ],
      [
        'ALTER TABLE "public"."t" ADD COLUMN "b" text',
        'ALTER TABLE "public"."t" DROP COLUMN "b";',
        null,
        false,
      ],
      ['CREATE INDEX "t_b" ON "public"."t" USING "btree" (b)', 'DROP INDEX "public"."t_b";', null, false],
    ]);
    expect(migration.rollback?.map((s) => s.sql)).toEqual([
      'DROP INDEX "public"."t_b"',
      'ALTER TABLE "public"."t" DROP COLUMN "b"',
      'ALTER TABLE "public"."t" ALTER COLUMN "a" TYPE integer',
      'DROP TABLE "public"."u"',
    ]);
    expect(migration.statements[2]!.lossy_reason).toContain('bigint back to integer');
  });

  it('has no rollback for a drop without backup', () => {
    const table = makeTable('t', { columns: [makeColumn('a')] });
    const migration = assembleMigration(
      [{ kind: 'drop_table', table, backup: null, sequences: [] }],
      postgresDdl,
      context,
    );
    expect(migration.statements[0]).toMatchObject({ destructive: true, reversible: false, rollback: null });
    expect(migration.rollback).toBeNull();
  });
});

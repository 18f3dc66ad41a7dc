import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex } from '../../../test/support/schema-models.ts';
import type { MigrationOperation } from '../../engine/migration/operations.ts';
import { mysqlDdl } from './mysql.ddl.ts';
import { parseMysqlSql } from './mysql.sql.ts';

const t = { schema: null, name: 't' };

const factsOf = async (sql: string) => {
  const [statement, ...rest] = await parseMysqlSql(sql);
  expect(rest).toEqual([]);
  return statement!;
};

describe('ALTER TABLE clauses node-sql-parser refuses, read by the fallback', () => {
  it('reads each form, quoted or bare, keywords in any case, a qualified table without its database', async () => {
    const cases: [string, unknown][] = [
      ['ALTER TABLE `t` RENAME INDEX `a` TO `b`', { action: 'rename_index', table: t, name: 'a', to: 'b' }],
      ['alter table t rename key a to b', { action: 'rename_index', table: t, name: 'a', to: 'b' }],
      [
        'ALTER TABLE `t` DROP CONSTRAINT `c`',
        { action: 'drop_constraint', table: t, constraint: null, name: 'c' },
      ],
      [
        'ALTER TABLE `t` DROP CHECK `c`',
        { action: 'drop_constraint', table: t, constraint: 'check', name: 'c' },
      ],
      [
        'ALTER TABLE t ALTER COLUMN a SET DEFAULT 5',
        { action: 'set_default', table: t, column: 'a', volatile: false },
      ],
      [
        "ALTER TABLE `db`.`t` ALTER `a` SET DEFAULT 'it''s'",
        { action: 'set_default', table: t, column: 'a', volatile: false },
      ],
      [
        'ALTER TABLE db.t ALTER COLUMN `a` SET DEFAULT (uuid())',
        { action: 'set_default', table: t, column: 'a', volatile: false },
      ],
      // node-sql-parser reads this one itself; its facts say the same as the fallback's.
      ['ALTER TABLE t DROP CHECK c', { action: 'drop_constraint', table: t, constraint: 'check', name: 'c' }],
      ['ALTER TABLE t ALTER a DROP DEFAULT', { action: 'drop_default', table: t, column: 'a' }],
      [
        'ALTER TABLE `t` ALTER COLUMN `column` DROP DEFAULT',
        { action: 'drop_default', table: t, column: 'column' },
      ],
      [
        'ALTER TABLE `ta``ble` /* a comment */ RENAME INDEX `x``y` -- and one more\n TO `z`',
        { action: 'rename_index', table: { schema: null, name: 'ta`ble' }, name: 'x`y', to: 'z' },
      ],
    ];
    for (const [sql, fact] of cases) {
      expect(await factsOf(sql), sql).toEqual({
        sql,
        facts: [fact],
        error: null,
        key: expect.any(String),
        transactional: false,
        class: { name: 'definition', schema_only: true },
      });
    }
  });

  it('reads several clauses in order, handing clauses of other forms to node-sql-parser', async () => {
    const statement = await factsOf(
      "ALTER TABLE t RENAME INDEX a TO b, ADD COLUMN c enum('x,y', 'z') NOT NULL DEFAULT 'z'," +
        ' DROP CHECK d, ALTER e SET DEFAULT (concat(1, 2)), DROP INDEX f, ALTER COLUMN g DROP DEFAULT',
    );
    expect(statement.error).toBeNull();
    expect(statement.facts).toEqual([
      { action: 'rename_index', table: t, name: 'a', to: 'b' },
      {
        action: 'add_column',
        table: t,
        column: 'c',
        not_null: true,
        has_default: true,
        volatile_default: false,
        computed: false,
      },
      { action: 'drop_constraint', table: t, constraint: 'check', name: 'd' },
      { action: 'set_default', table: t, column: 'e', volatile: false },
      { action: 'drop_index', table: t, name: 'f', concurrently: false },
      { action: 'drop_default', table: t, column: 'g' },
    ]);
  });

  it('keeps the parse error, with node-sql-parser message, when any clause is not read', async () => {
    const refused = [
      'ALTER TABLE t RENAME INDEX a TO b, FROB c',
      'ALTER TABLE t RENAME INDEX a TO b, ADD COLUMN',
      'ALTER TABLE t RENAME INDEX a b',
      'ALTER TABLE t RENAME INDEX a TO b c',
      'ALTER TABLE t ALTER COLUMN a SET DEFAULT',
      'ALTER TABLE t ALTER COLUMN a SET DEFAULT 1 2',
      'ALTER TABLE t ALTER COLUMN a SET DEFAULT (1',
      'ALTER TABLE t ALTER COLUMN a SET DEFAULT 1), RENAME INDEX a TO b',
      'ALTER TABLE t ALTER COLUMN a DROP DEFAULT NOW',
      'ALTER TABLE t DROP CONSTRAINT 42',
      'ALTER TABLE t DROP CONSTRAINT ``',
      'ALTER TABLE t RENAME INDEX `a TO b',
      'ALTER TABLE RENAME INDEX a TO b',
      'ALTER TABLE t',
      'ALTER TABLE t RENAME INDEX a TO b,',
      'ALTER VIEW t RENAME INDEX a TO b',
    ];
    for (const sql of refused) {
      const statement = await factsOf(sql);
      expect(statement.facts, sql).toBeNull();
      expect(statement.error, sql).toMatch(/^Expected /);
    }
  });

  it('makes the ALTER TABLE statements the planner writes parse', async () => {
    const table = { schema: null, name: 'ta`ble' };
    const column = makeColumn('n', { type: 'int', collation: null, default_normalized: '0', default: '0' });
    const bare = { ...column, default: null, default_normalized: null };
    const check = { name: 'n_positive', expression: '`n` > 0' };
    const ops: MigrationOperation[] = [
      { kind: 'rename_index', table, from: 'old', to: 'new' },
      { kind: 'drop_check', table, constraint: check },
      { kind: 'add_check', table, constraint: { ...check, name: 'n_small' } },
      { kind: 'alter_column', change: 'set_default', table, before: bare, after: column },
      { kind: 'add_column', table, column: makeColumn('x', { type: 'int', collation: null }) },
      { kind: 'create_index', table, index: makeIndex('by_x', ['x']), concurrently: false },
    ];
    const dropDefault: MigrationOperation = {
      kind: 'alter_column',
      change: 'drop_default',
      table,
      before: column,
      after: bare,
    };
    // One op per statement (a statement each) and all of them folded into one ALTER TABLE.
    const rendered = [
      ...[...ops, dropDefault].flatMap((op) => mysqlDdl.renderDdl([op], { flavor: 'mysql' })),
      ...mysqlDdl.renderDdl(ops, { flavor: 'mariadb' }),
    ];
    expect(rendered.map((s) => s.sql)).toContain('ALTER TABLE `ta``ble` RENAME INDEX `old` TO `new`');
    for (const { sql } of rendered) {
      const statement = await factsOf(sql);
      expect(statement.error, sql).toBeNull();
      expect(statement.facts, sql).not.toEqual([]);
    }
    const folded = await factsOf(rendered[rendered.length - 1]!.sql);
    expect(folded.facts?.map((fact) => fact.action)).toEqual([
      'rename_index',
      'drop_constraint',
      'add_constraint',
      'modify_column',
      'add_column',
      'create_index',
    ]);
  });
});

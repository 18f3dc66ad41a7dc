import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex } from '../../../test/support/schema-models.ts';
import { assembleMigration } from '../../engine/migration/migration.ts';
import type { MigrationOperation } from '../../engine/migration/operations.ts';
import { columnDefinition, mysqlDdl } from './mysql.ddl.ts';

const context = { flavor: 'mariadb' as const };
const table = { schema: null, name: 'ta`ble' };
const col = (name: string, fields: Parameters<typeof makeColumn>[1] = {}) =>
  makeColumn(name, { type: 'int', collation: null, ...fields });

describe('MySQL DDL', () => {
  it('writes column definitions with quoted names, escaped literals and bare or parenthesised defaults', () => {
    expect(
      columnDefinition(
        col('a', {
          type: 'varchar(10)',
          collation: 'utf8mb4_bin',
          nullable: false,
          default_normalized: "'it''s'",
          comment: "x'y",
        }),
        'mariadb',
      ),
    ).toBe("`a` varchar(10) COLLATE utf8mb4_bin NOT NULL DEFAULT 'it''s' COMMENT 'x\\'y'");
    expect(columnDefinition(col('b', { type: 'char(36)', default_normalized: 'uuid()' }), 'mysql')).toBe(
      '`b` char(36) NULL DEFAULT (uuid())',
    );
    expect(
      columnDefinition(
        col('c', {
          type: 'timestamp',
          nullable: false,
          default_normalized: 'current_timestamp',
          on_update: 'current_timestamp',
        }),
        'mariadb',
      ),
    ).toBe('`c` timestamp NOT NULL DEFAULT current_timestamp ON UPDATE current_timestamp');
    expect(() => columnDefinition(col('d', { collation: 'x; DROP' }), 'mysql')).toThrow(/collation/);
  });

  it('folds the changes of one table into one ALTER TABLE, one MODIFY per column', () => {
    const before = col('n');
    const ops: MigrationOperation[] = [
      { kind: 'drop_index', table, index: makeIndex('old', ['n']), concurrently: false },
      { kind: 'add_column', table, column: col('x') },
      { kind: 'alter_column', change: 'type', table, before, after: { ...before, type: 'bigint' } },
      {
        kind: 'alter_column',
        change: 'set_not_null',
        table,
        before: { ...before, type: 'bigint' },
        after: { ...before, type: 'bigint', nullable: false },
      },
      {
        kind: 'add_primary_key',
        table,
        key: { name: 'PRIMARY', columns: ['n'], deferrable: false, initially_deferred: false },
      },
      {
        kind: 'create_index',
        table,
        index: makeIndex('new', ['x(10)', 'n DESC'], { unique: true }),
        concurrently: false,
      },
    ];
    const [statement, ...rest] = mysqlDdl.renderDdl(ops, context);
    expect(rest).toEqual([]);
    expect(statement).toEqual({
      sql:
        'ALTER TABLE `ta``ble` DROP INDEX `old`, ADD COLUMN `x` int NULL, MODIFY COLUMN `n` bigint NOT NULL,' +
        ' ADD PRIMARY KEY (`n`), ADD UNIQUE INDEX `new` (`x`(10), `n` DESC)',
      transactional: false,
      kind: 'alter_table',
      operations: [0, 1, 2, 3, 4, 5],
    });
    // Its rollback is one ALTER TABLE too, undoing in reverse.
    const migration = assembleMigration(ops, mysqlDdl, context);
    expect(migration.rollback?.map((s) => s.sql)).toEqual([
      'ALTER TABLE `ta``ble` DROP INDEX `new`, DROP PRIMARY KEY, MODIFY COLUMN `n` int NULL, DROP COLUMN `x`, ADD INDEX `old` (`n`)',
    ]);
  });

  it('never folds across a statement of its own on the same table', () => {
    const column = col('c', { nullable: false });
    const ops: MigrationOperation[] = [
      { kind: 'add_column', table, column: { ...column, nullable: true } },
      {
        kind: 'restore_column',
        table,
        column,
        key: [col('id')],
        backup: '_dbops_bak_p_1_t_c',
        onUpdateColumns: ['stamp'],
        disableTriggers: false,
      },
      {
        kind: 'alter_column',
        change: 'set_not_null',
        table,
        before: { ...column, nullable: true },
        after: column,
      },
    ];
    expect(mysqlDdl.renderDdl(ops, context).map((s) => s.sql)).toEqual([
      'ALTER TABLE `ta``ble` ADD COLUMN `c` int NULL',
      'UPDATE `ta``ble` AS t JOIN `_dbops_bak_p_1_t_c` AS b ON t.`id` = b.`id` SET t.`c` = b.`c`, t.`stamp` = t.`stamp`',
      'ALTER TABLE `ta``ble` MODIFY COLUMN `c` int NOT NULL',
    ]);
  });

  it('refuses PostgreSQL-only operations', () => {
    expect(() =>
      mysqlDdl.renderDdl(
        [{ kind: 'create_enum', enum: { schema: 'x', name: 'e', values: [], used_by: [] } }],
        context,
      ),
    ).toThrow(/MySQL has no create_enum/);
  });
});

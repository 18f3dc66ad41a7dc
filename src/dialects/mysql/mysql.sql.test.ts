import { describe, expect, it } from 'vitest';
import { makeColumn, makeIndex, makeSchema, makeTable } from '../../../test/support/schema-models.ts';
import { analyzeSql } from '../../engine/migration/edit.ts';
import { mysqlDialect } from './mysql.dialect.ts';
import { parseMysqlSql, splitMysql } from './mysql.sql.ts';

describe('MySQL SQL splitting and parsing (node-sql-parser)', () => {
  it('cuts at semicolons outside quotes and comments only', () => {
    const pieces = splitMysql(
      "INSERT INTO t VALUES ('a;b', \"c;d\", 'it\\'s;'); # one; comment\nALTER TABLE `x;y` ADD COLUMN c int -- two; comments\n; /* three; */ SELECT 1;",
    );
    expect(pieces.map((p) => p.sql)).toEqual([
      "INSERT INTO t VALUES ('a;b', \"c;d\", 'it\\'s;')",
      '# one; comment\nALTER TABLE `x;y` ADD COLUMN c int -- two; comments',
      '/* three; */ SELECT 1',
    ]);
    // Keys ignore comments, spacing and keyword case, not the quoted text.
    expect(pieces[1]!.key).toBe('alter table `x;y` add column c int');
    expect(splitMysql('  -- only a comment\n')).toEqual([]);
  });

  it('parses each statement alone: one that does not parse is an error, not the end', async () => {
    const parsed = await parseMysqlSql('ALTER TABLE t ADD COLUMN a int; not sql at all; DROP TABLE b;');
    expect(parsed.map((s) => [s.sql, s.error === null])).toEqual([
      ['ALTER TABLE t ADD COLUMN a int', true],
      ['not sql at all', false],
      ['DROP TABLE b', true],
    ]);
  });

  it('reads what a statement does', async () => {
    const [alter, index, rename, set, begin, insert] = await parseMysqlSql(`
      ALTER TABLE t ADD COLUMN a int NOT NULL AUTO_INCREMENT, MODIFY COLUMN b varchar(20) NOT NULL,
        CHANGE c d int(11) unsigned NULL, DROP COLUMN e, DROP FOREIGN KEY f, DROP PRIMARY KEY,
        ADD CONSTRAINT g FOREIGN KEY (h) REFERENCES u (id), ADD UNIQUE INDEX i (j), DROP INDEX k;
      CREATE INDEX l ON t (m);
      RENAME TABLE t TO t2;
      SET SESSION lock_wait_timeout = 5;
      START TRANSACTION;
      INSERT INTO t (a) VALUES (1);`);
    const t = { schema: null, name: 't' };
    expect(alter!.facts).toEqual([
      {
        action: 'add_column',
        table: t,
        column: 'a',
        not_null: true,
        has_default: false,
        volatile_default: false,
        computed: true,
      },
      { action: 'modify_column', table: t, column: 'b', type: 'varchar(20)', not_null: true },
      { action: 'modify_column', table: t, column: 'c', type: 'int unsigned', not_null: false },
      { action: 'rename_column', table: t, column: 'c', to: 'd' },
      { action: 'drop_column', table: t, column: 'e', backed_up: false },
      { action: 'drop_constraint', table: t, constraint: 'foreign_key', name: 'f' },
      { action: 'drop_constraint', table: t, constraint: 'primary_key', name: 'PRIMARY' },
      {
        action: 'add_constraint',
        table: t,
        constraint: 'foreign_key',
        name: 'g',
        columns: ['h'],
        not_valid: false,
      },
      { action: 'create_index', table: t, name: 'i', unique: true, concurrently: false },
      { action: 'drop_index', table: t, name: 'k', concurrently: false },
    ]);
    expect(alter!.transactional).toBe(false);
    expect(index!.facts).toEqual([
      { action: 'create_index', table: t, name: 'l', unique: false, concurrently: false },
    ]);
    expect(rename!.facts).toEqual([{ action: 'rename_table', table: t, to: 't2' }]);
    expect(set!.facts).toEqual([{ action: 'set_lock_timeout' }]);
    expect(begin!.facts).toEqual([{ action: 'transaction_control' }]);
    expect(insert).toMatchObject({ transactional: true, facts: [{ action: 'data_change', table: t }] });
  });
});

describe('edited MySQL SQL: derived rollback', () => {
  const mysql = { dialect: 'mysql' as const, flavor: 'mariadb' as const };
  const target = makeSchema(
    [
      makeTable('t', {
        schema: null,
        columns: [
          makeColumn('a', {
            type: 'varchar(20)',
            collation: 'utf8mb4_general_ci',
            default_normalized: "'x'",
          }),
          makeColumn('b', { type: 'int', nullable: false }),
        ],
        indexes: [makeIndex('t_b', ['b'])],
        check_constraints: [{ name: 't_b_positive', expression: '`b` > 0' }],
      }),
    ],
    mysql,
  );

  it('undoes a MODIFY with the target definition, an index with its drop, a drop of an index with the target one', async () => {
    const analyzed = await analyzeSql(
      'ALTER TABLE t MODIFY a varchar(10) NOT NULL; CREATE INDEX t_a ON t (a); ALTER TABLE t DROP INDEX t_b, ADD COLUMN c int;',
      { dialect: mysqlDialect, target },
    );
    expect(analyzed.statements.map((s) => s.rollback_sql)).toEqual([
      "ALTER TABLE `t` MODIFY COLUMN `a` varchar(20) COLLATE utf8mb4_general_ci NULL DEFAULT 'x';",
      'ALTER TABLE `t` DROP INDEX `t_a`;',
      'ALTER TABLE `t` DROP COLUMN `c`, ADD INDEX `t_b` (`b`);',
    ]);
    expect(analyzed.statements[0]).toMatchObject({ lossy: true, kind: 'modify_column', object: 't.a' });
    expect(analyzed.rollback?.map((s) => s.sql)).toEqual([
      'ALTER TABLE `t` DROP COLUMN `c`, ADD INDEX `t_b` (`b`)',
      'ALTER TABLE `t` DROP INDEX `t_a`',
      "ALTER TABLE `t` MODIFY COLUMN `a` varchar(20) COLLATE utf8mb4_general_ci NULL DEFAULT 'x'",
    ]);
  });

  it('undoes the clauses node-sql-parser cannot read: an index named back, a check added back, a default restored', async () => {
    const analyzed = await analyzeSql(
      'ALTER TABLE t RENAME INDEX t_b TO t_b2, DROP CONSTRAINT t_b_positive, ALTER COLUMN a DROP DEFAULT; ALTER TABLE `t` ALTER `b` SET DEFAULT 1;',
      { dialect: mysqlDialect, target },
    );
    expect(analyzed.statements.map((s) => [s.parse_error, s.kind, s.object])).toEqual([
      [null, 'rename_index', 't.t_b'],
      [null, 'set_default', 't.b'],
    ]);
    expect(analyzed.statements.map((s) => s.rollback_sql)).toEqual([
      "ALTER TABLE `t` MODIFY COLUMN `a` varchar(20) COLLATE utf8mb4_general_ci NULL DEFAULT 'x'," +
        ' ADD CONSTRAINT `t_b_positive` CHECK (`b` > 0), RENAME INDEX `t_b2` TO `t_b`;',
      'ALTER TABLE `t` MODIFY COLUMN `b` int NOT NULL;',
    ]);
  });
});

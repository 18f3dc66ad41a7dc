// The negative side of the lint rules that src/engine/migration/lint.test.ts only shows firing
// (rename, drop-table, drop-column, transaction-control, parse-error), on SQL read by each engine's
// real parser (libpg-query, node-sql-parser): the look-alike statements that must stay quiet. No
// server needed: parsing and lint are pure.
import { describe, expect, it } from 'vitest';
import { analyzeSql } from '../engine/migration/edit.ts';
import { type LintWarning, lintStatements } from '../engine/migration/lint.ts';
import { mysqlDialect } from './mysql/mysql.dialect.ts';
import { postgresDialect } from './postgres/postgres.dialect.ts';

const engines = [
  {
    name: 'PostgreSQL',
    dialect: postgresDialect,
    positive:
      'ALTER TABLE t RENAME TO u; ALTER TABLE t RENAME COLUMN a TO b; DROP TABLE t; ALTER TABLE t DROP COLUMN a; BEGIN; this is not sql',
    negative: [
      'ALTER INDEX t_a_idx RENAME TO t_a_key',
      'ALTER TABLE t RENAME CONSTRAINT t_a_check TO t_a_ck',
      'ALTER TABLE t ADD COLUMN c int',
      'ALTER TABLE t DROP CONSTRAINT t_a_check',
      'DROP INDEX t_a_idx',
      'SET lock_timeout = 1000',
      'CREATE TABLE v (id int PRIMARY KEY)',
    ].join(';\n'),
  },
  {
    name: 'MySQL',
    dialect: mysqlDialect,
    positive:
      'RENAME TABLE t TO u; ALTER TABLE t RENAME COLUMN a TO b; DROP TABLE t; ALTER TABLE t DROP COLUMN a; START TRANSACTION; this is not sql',
    // Not `ALTER TABLE t RENAME INDEX a TO b` (valid MySQL 5.7+ / MariaDB 10.5+): node-sql-parser
    // does not parse it, so lint reports it as a parse-error.
    negative: [
      'ALTER TABLE t ADD COLUMN c int',
      'ALTER TABLE t DROP INDEX t_a_idx',
      'CREATE TABLE v (id int PRIMARY KEY)',
    ].join(';\n'),
  },
] as const;

const rules = (warnings: LintWarning[]) => [...new Set(warnings.map((w) => w.rule))].sort();

describe('lint: look-alike statements stay quiet', () => {
  for (const engine of engines) {
    const lint = async (sql: string) => {
      const analyzed = await analyzeSql(sql, { dialect: engine.dialect, target: null });
      // A lock timeout is set by apply: lock-timeout-missing is not what is tested here.
      return lintStatements(analyzed.statements, {
        dialect: engine.dialect.name,
        target: null,
        stats: null,
        lock_timeout_ms: 5_000,
      });
    };

    it(`${engine.name}: rename, drop-table, drop-column, transaction-control and parse-error fire`, async () => {
      expect(rules(await lint(engine.positive))).toEqual(
        expect.arrayContaining(['drop-column', 'drop-table', 'parse-error', 'rename', 'transaction-control']),
      );
    });

    it(`${engine.name}: and not on look-alikes (index, constraint, added column, SET, CREATE)`, async () => {
      const warnings = await lint(engine.negative);
      for (const rule of ['drop-column', 'drop-table', 'parse-error', 'rename', 'transaction-control'])
        expect(rules(warnings)).not.toContain(rule);
    });
  }
});

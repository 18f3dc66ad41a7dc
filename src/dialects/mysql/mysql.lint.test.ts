// Lint on a real MySQL/MariaDB: the four required rules on minimal cases and their safe variants,
// with "populated" and "large" from information_schema (and the tables themselves), edited SQL
// parsed by node-sql-parser, and garbage that does not parse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSkipped } from '../../../test/support/databases.ts';
import { type LoadedDatabase, loadedDatabase } from '../../../test/support/migrations.ts';
import { mysqlAvailable, testMysqlUrl } from '../../../test/support/mysql.ts';
import { analyzeSql } from '../../engine/migration/edit.ts';
import { type LintWarning, lintStatements } from '../../engine/migration/lint.ts';
import type { LintThresholds, TableStats } from '../../engine/migration/lint-context.ts';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { mysqlDialect } from './mysql.dialect.ts';

const mysqlUp = await mysqlAvailable();
if (!mysqlUp) reportSkipped('MySQL lint (src/dialects/mysql/mysql.lint.test.ts)', 'MySQL', testMysqlUrl);

const SCHEMA = `
  CREATE TABLE parent (id int PRIMARY KEY, name varchar(20), KEY parent_name (name),
    CONSTRAINT parent_name_set CHECK (name <> ''));
  CREATE TABLE child (id int PRIMARY KEY, parent_id int, note text,
    CONSTRAINT child_parent_fk FOREIGN KEY (parent_id) REFERENCES parent (id));
  CREATE TABLE empty_t (id int PRIMARY KEY, v varchar(20));
  INSERT INTO parent VALUES (1, 'a'), (2, 'b'), (3, 'c');
  INSERT INTO child VALUES (1, 1, 'x'), (2, 2, 'y');
`;

describe.skipIf(!mysqlUp)('MySQL/MariaDB lint', () => {
  let db: LoadedDatabase;
  let target: SchemaModel;
  let stats: TableStats[];
  beforeAll(async () => {
    db = await loadedDatabase(mysqlDialect, SCHEMA);
    target = await db.handle.introspect();
    // InnoDB refreshes its estimates in the background; ANALYZE makes them current now.
    await db.run('ANALYZE TABLE parent, child, empty_t');
    stats = await db.handle.tableStats();
  });
  afterAll(async () => {
    await db?.close();
  });

  const lint = async (sql: string, thresholds: Partial<LintThresholds> = {}): Promise<LintWarning[]> => {
    const analyzed = await analyzeSql(sql, { dialect: mysqlDialect, target });
    return lintStatements(analyzed.statements, {
      dialect: 'mysql',
      target,
      stats,
      thresholds,
      lock_timeout_ms: 5_000,
    });
  };
  const rules = (warnings: LintWarning[]) => warnings.map((w) => `${w.rule}:${w.severity}:${w.object}`);

  it('reads the tables statistics', () => {
    const byName = new Map(stats.map((s) => [s.name, s]));
    expect(byName.get('parent')).toMatchObject({ schema: null, populated: true });
    expect(byName.get('empty_t')).toMatchObject({ populated: false, rows: 0 });
    expect(byName.get('parent')!.bytes).toBeGreaterThan(0);
  });

  it('alter-column-type: fires on a type change (MODIFY), not on a restated definition', async () => {
    expect(rules(await lint('ALTER TABLE parent MODIFY name varchar(10)'))).toContain(
      'alter-column-type:error:parent.name',
    );
    expect(rules(await lint('ALTER TABLE parent MODIFY id bigint NOT NULL'))).toContain(
      'alter-column-type:warning:parent.id',
    );
    expect(rules(await lint('ALTER TABLE parent MODIFY name varchar(20)'))).not.toContainEqual(
      expect.stringMatching(/^alter-column-type/),
    );
  });

  it('add-not-null-without-default: fires on a populated table only, and not with a default', async () => {
    const warnings = await lint('ALTER TABLE parent ADD COLUMN c int NOT NULL');
    expect(rules(warnings)).toContain('add-not-null-without-default:warning:parent.c');
    expect(warnings.find((w) => w.rule === 'add-not-null-without-default')!.message).toContain('silently');
    expect(rules(await lint('ALTER TABLE empty_t ADD COLUMN c int NOT NULL'))).not.toContainEqual(
      expect.stringMatching(/^add-not-null/),
    );
    expect(rules(await lint('ALTER TABLE parent ADD COLUMN c int NOT NULL DEFAULT 0'))).not.toContainEqual(
      expect.stringMatching(/^add-not-null/),
    );
  });

  it('drop-column-with-foreign-key: an error while the key exists (MariaDB refuses), a warning after it went', async () => {
    expect(rules(await lint('ALTER TABLE child DROP COLUMN parent_id'))).toContain(
      'drop-column-with-foreign-key:error:child.parent_id',
    );
    expect(rules(await lint('ALTER TABLE child DROP COLUMN note'))).not.toContainEqual(
      expect.stringMatching(/^drop-column-with-foreign-key/),
    );
    const dropped = await lint(
      'ALTER TABLE child DROP FOREIGN KEY child_parent_fk; ALTER TABLE child DROP COLUMN parent_id;',
    );
    expect(dropped.find((w) => w.rule === 'drop-column-with-foreign-key')).toMatchObject({
      severity: 'warning',
      statement_index: 1,
    });
  });

  it('costly-alter-on-large-table: fires above the threshold only', async () => {
    const low = { large_rows: 2 };
    expect(rules(await lint('ALTER TABLE parent MODIFY id bigint NOT NULL', low))).toContain(
      'costly-alter-on-large-table:warning:parent.id',
    );
    expect(rules(await lint('ALTER TABLE parent MODIFY id bigint NOT NULL'))).not.toContainEqual(
      expect.stringMatching(/^costly/),
    );
    // Adding a nullable column is instant on MySQL 8 and MariaDB 10.3+.
    expect(rules(await lint('ALTER TABLE parent ADD COLUMN extra int', low))).not.toContainEqual(
      expect.stringMatching(/^costly/),
    );
  });

  it('garbage SQL is a parse-error; quoted semicolons and comments do not cut statements', async () => {
    const warnings = await lint(
      "ALTER TABLE parent ADD COLUMN c int NOT NULL DEFAULT 0 COMMENT 'a;b'; -- a comment; with a semicolon\nnot sql at all; DROP TABLE child;",
    );
    expect(rules(warnings)).toEqual(['parse-error:error:statement 2', 'drop-table:warning:child']);
  });

  it('reads RENAME INDEX, DROP CONSTRAINT and ALTER COLUMN … DEFAULT (no parse-error), and their derived rollback restores the target', async () => {
    const edited =
      "ALTER TABLE parent RENAME INDEX `parent_name` TO `parent_label`, DROP CONSTRAINT `parent_name_set`, ALTER COLUMN name SET DEFAULT 'n'; ALTER TABLE `parent` ALTER `name` DROP DEFAULT;";
    expect(rules(await lint(edited))).not.toContainEqual(expect.stringMatching(/^parse-error/));
    const analyzed = await analyzeSql(edited, { dialect: mysqlDialect, target });
    expect(analyzed.statements.map((s) => [s.parse_error, s.kind, s.reversible])).toEqual([
      [null, 'rename_index', true],
      [null, 'drop_default', true],
    ]);
    expect(analyzed.rollback_sql).toContain('RENAME INDEX `parent_label` TO `parent_name`');
    expect(analyzed.rollback_sql).toContain('ADD CONSTRAINT `parent_name_set` CHECK');

    // Applied for real, on a database of its own: the edit changes the target, its rollback undoes it.
    const scratch = await loadedDatabase(mysqlDialect, SCHEMA);
    try {
      const original = await scratch.handle.introspect();
      await scratch.run(edited);
      expect(schemaHash(await scratch.handle.introspect())).not.toBe(schemaHash(original));
      await scratch.run(analyzed.rollback_sql!);
      expect(await scratch.handle.introspect()).toEqual(original);
    } finally {
      await scratch.close();
    }
  });
});

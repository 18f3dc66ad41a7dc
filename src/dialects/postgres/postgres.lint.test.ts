// Lint on a real PostgreSQL: the four required rules on minimal cases and their safe variants, with
// "populated" and "large" from the server's own statistics (a few rows, and a low threshold for
// "large"), edited SQL parsed by libpg-query, and garbage that does not parse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import { type LoadedDatabase, loadedDatabase } from '../../../test/support/migrations.ts';
import { analyzeSql } from '../../engine/migration/edit.ts';
import { type LintWarning, lintStatements } from '../../engine/migration/lint.ts';
import type { LintThresholds, TableStats } from '../../engine/migration/lint-context.ts';
import { planMigration } from '../../engine/migration/migration.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { postgresDialect } from './postgres.dialect.ts';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped('PostgreSQL lint (src/dialects/postgres/postgres.lint.test.ts)', 'PostgreSQL', testPgUrl);

const SCHEMA = `
  CREATE TABLE parent (id int PRIMARY KEY, name varchar(20));
  CREATE TABLE child (id int PRIMARY KEY, parent_id int CONSTRAINT child_parent_fk REFERENCES parent (id), note text);
  CREATE TABLE empty_t (id int PRIMARY KEY, v varchar(20));
  INSERT INTO parent VALUES (1, 'a'), (2, 'b'), (3, 'c');
  INSERT INTO child VALUES (1, 1, 'x'), (2, 2, 'y');
`;

describe.skipIf(!pgUp)('PostgreSQL lint', () => {
  let db: LoadedDatabase;
  let target: SchemaModel;
  let stats: TableStats[];
  let beforeAnalyze: TableStats[];
  beforeAll(async () => {
    db = await loadedDatabase(postgresDialect, SCHEMA);
    target = await db.handle.introspect();
    beforeAnalyze = await db.handle.tableStats();
    // What autovacuum does sooner or later: the row estimates become known.
    await db.run('ANALYZE');
    stats = await db.handle.tableStats();
  });
  afterAll(async () => {
    await db?.close();
  });

  const lint = async (sql: string, thresholds: Partial<LintThresholds> = {}): Promise<LintWarning[]> => {
    const analyzed = await analyzeSql(sql, { dialect: postgresDialect, target });
    return lintStatements(analyzed.statements, {
      dialect: 'postgresql',
      target,
      stats,
      thresholds,
      lock_timeout_ms: 5_000,
    });
  };
  const rules = (warnings: LintWarning[]) => warnings.map((w) => `${w.rule}:${w.severity}:${w.object}`);

  it('reads the tables statistics: rows and populated from the server', async () => {
    // Before ANALYZE the estimate may be unknown: whether a table has rows is asked of the table.
    const early = new Map(beforeAnalyze.map((s) => [s.name, s]));
    expect(early.get('parent')).toMatchObject({ schema: 'public', populated: true });
    expect(early.get('empty_t')).toMatchObject({ schema: 'public', populated: false, rows: 0 });
    expect(early.get('parent')!.bytes).toBeGreaterThan(0);
    const [analysed] = await db.handle.tableStats([{ schema: 'public', name: 'parent' }]);
    expect(analysed).toMatchObject({ name: 'parent', rows: 3, populated: true });
    expect(stats.map((s) => s.name).sort()).toEqual(['child', 'empty_t', 'parent']);
  });

  it('alter-column-type: fires on a type change (narrowing: error), not on other changes', async () => {
    const narrowing = await lint('ALTER TABLE parent ALTER COLUMN name TYPE varchar(10)');
    expect(rules(narrowing)).toContain('alter-column-type:error:public.parent.name');
    expect(narrowing.find((w) => w.rule === 'alter-column-type')!.message).toMatch(/narrows.*backfill/s);
    const widening = await lint('ALTER TABLE parent ALTER COLUMN id TYPE bigint');
    expect(widening.find((w) => w.rule === 'alter-column-type')).toMatchObject({ severity: 'warning' });
    expect(widening.find((w) => w.rule === 'alter-column-type')!.message).toContain('rewritten');
    // A longer varchar is done in place: said so, at info, and the backfill path is not offered.
    const inPlace = (await lint('ALTER TABLE parent ALTER COLUMN name TYPE varchar(40)')).find(
      (w) => w.rule === 'alter-column-type',
    )!;
    expect(inPlace).toMatchObject({ severity: 'info' });
    expect(inPlace.message).toContain('No rewrite is needed.');
    expect(inPlace.message).not.toMatch(/backfill/);
    expect(rules(await lint('ALTER TABLE parent ADD COLUMN extra text'))).not.toContainEqual(
      expect.stringMatching(/^alter-column-type/),
    );
  });

  it('add-not-null-without-default: fires on a populated table only, and not with a default', async () => {
    expect(rules(await lint('ALTER TABLE parent ADD COLUMN c int NOT NULL'))).toContain(
      'add-not-null-without-default:error:public.parent.c',
    );
    expect(rules(await lint('ALTER TABLE empty_t ADD COLUMN c int NOT NULL'))).not.toContainEqual(
      expect.stringMatching(/^add-not-null/),
    );
    expect(rules(await lint('ALTER TABLE parent ADD COLUMN c int NOT NULL DEFAULT 0'))).not.toContainEqual(
      expect.stringMatching(/^add-not-null/),
    );
  });

  it('drop-column-with-foreign-key: fires on both sides of a foreign key, not on other columns', async () => {
    const referencing = await lint('ALTER TABLE child DROP COLUMN parent_id');
    expect(referencing.find((w) => w.rule === 'drop-column-with-foreign-key')).toMatchObject({
      severity: 'warning',
      object: 'public.child.parent_id',
    });
    expect(referencing.find((w) => w.rule === 'drop-column-with-foreign-key')!.message).toContain(
      'silently drops',
    );
    const referenced = await lint('ALTER TABLE parent DROP COLUMN id');
    expect(referenced.find((w) => w.rule === 'drop-column-with-foreign-key')).toMatchObject({
      severity: 'error',
    });
    expect(rules(await lint('ALTER TABLE child DROP COLUMN note'))).not.toContainEqual(
      expect.stringMatching(/^drop-column-with-foreign-key/),
    );
    // Dropped first in its own statement: still told, as a warning about the relationship.
    const dropped = await lint(
      'ALTER TABLE child DROP CONSTRAINT child_parent_fk; ALTER TABLE child DROP COLUMN parent_id;',
    );
    expect(dropped.find((w) => w.rule === 'drop-column-with-foreign-key')).toMatchObject({
      severity: 'warning',
      statement_index: 1,
    });
  });

  it('costly-alter-on-large-table: fires above the threshold only, and not for a change without rewrite', async () => {
    const low = { large_rows: 2 };
    expect(rules(await lint('ALTER TABLE parent ALTER COLUMN id TYPE bigint', low))).toContain(
      'costly-alter-on-large-table:warning:public.parent.id',
    );
    expect(rules(await lint('CREATE INDEX parent_name ON parent (name)', low))).toContain(
      'costly-alter-on-large-table:warning:public.parent',
    );
    expect(rules(await lint('ALTER TABLE parent ALTER COLUMN id TYPE bigint'))).not.toContainEqual(
      expect.stringMatching(/^costly/),
    );
    // A longer varchar needs no rewrite on PostgreSQL.
    expect(
      rules(await lint('ALTER TABLE parent ALTER COLUMN name TYPE varchar(40)', low)),
    ).not.toContainEqual(expect.stringMatching(/^costly/));
    expect(
      rules(await lint('ALTER TABLE empty_t ALTER COLUMN id TYPE bigint', { large_bytes: 1 })),
    ).toContain('costly-alter-on-large-table:warning:public.empty_t.id');
  });

  it('garbage SQL is a parse-error, the statements around it are still linted', async () => {
    const warnings = await lint(
      'ALTER TABLE parent ADD COLUMN c int NOT NULL; this is not sql; DROP TABLE child;',
    );
    expect(rules(warnings)).toEqual(
      expect.arrayContaining([
        'add-not-null-without-default:error:public.parent.c',
        'parse-error:error:statement 2',
        'drop-table:warning:public.child',
      ]),
    );
    expect(warnings.find((w) => w.rule === 'parse-error')!.statement_index).toBe(1);
  });

  it('lints a planned migration and the same SQL edited', async () => {
    const source = structuredClone(target);
    const parent = source.tables.find((t) => t.name === 'parent')!;
    parent.columns.push({ ...parent.columns[1]!, name: 'code', nullable: false, ordinal_position: 3 });
    parent.columns[1] = { ...parent.columns[1]!, type: 'character varying(5)' };
    const migration = planMigration(source, target, postgresDialect);
    const context = { dialect: 'postgresql' as const, target, stats, lock_timeout_ms: 5_000 };
    const planned = rules(lintStatements(migration.statements, context));
    expect(planned).toEqual(
      expect.arrayContaining([
        'alter-column-type:error:public.parent.name',
        'add-not-null-without-default:error:public.parent.code',
      ]),
    );
    // Unchanged text keeps the planned facts; an edit adding a default silences one rule.
    const same = await analyzeSql(migration.sql, { dialect: postgresDialect, target, plan: migration });
    expect(rules(lintStatements(same.statements, context))).toEqual(planned);
    const edited = await analyzeSql(
      migration.sql.replace('character varying(20) NOT NULL', "character varying(20) NOT NULL DEFAULT ''"),
      {
        dialect: postgresDialect,
        target,
        plan: migration,
      },
    );
    expect(rules(lintStatements(edited.statements, context))).not.toContain(
      'add-not-null-without-default:error:public.parent.code',
    );
  });

  it('blocks a type change that has no cast (error) until the SQL says how values convert', async () => {
    await db.run(
      'CREATE TABLE stamp (id int PRIMARY KEY, at bigint); INSERT INTO stamp VALUES (1, 1700000000)',
    );
    target = await db.handle.introspect();
    const planned = await lint(
      'ALTER TABLE stamp ALTER COLUMN at TYPE timestamp without time zone USING at::timestamp without time zone',
    );
    expect(rules(planned)).toContain('alter-column-type:error:public.stamp.at');
    expect(planned.find((w) => w.rule === 'alter-column-type')?.message).toMatch(/no cast/);
    const edited = await lint('ALTER TABLE stamp ALTER COLUMN at TYPE timestamp USING to_timestamp(at)');
    expect(rules(edited)).toContain('alter-column-type:warning:public.stamp.at');
    // A cast that exists (text ↔ integer) is a warning: it converts, failing only on bad values.
    const castable = await lint('ALTER TABLE parent ALTER COLUMN name TYPE integer USING name::integer');
    expect(rules(castable)).toContain('alter-column-type:warning:public.parent.name');
  });
});

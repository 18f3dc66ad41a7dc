// Migrations on real MySQL/MariaDB schemas: Sakila and Chinook from the shared corpus with a target
// changed by a script, planned, applied, compared again (nothing left), rolled back (the original
// hash), with the rows backup_drops kept back in place. And the honest report of a statement that
// fails midway: MySQL commits each DDL statement, so what ran stays and the result says exactly what.
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusAvailable, readCorpus } from '../../../test/support/corpus.ts';
import { reportSkipped } from '../../../test/support/databases.ts';
import {
  expectRoundTrip,
  type LoadedDatabase,
  loadedDatabase,
  roundTrip,
} from '../../../test/support/migrations.ts';
import { mysqlAvailable, testMysqlUrl } from '../../../test/support/mysql.ts';
import { analyzeSql } from '../../engine/migration/edit.ts';
import { planMigration } from '../../engine/migration/migration.ts';
import { mysqlDialect } from './mysql.dialect.ts';

const mysqlUp = await mysqlAvailable();
if (!mysqlUp)
  reportSkipped('MySQL migrations (src/dialects/mysql/mysql.migration.test.ts)', 'MySQL', testMysqlUrl);

async function rows(url: string, sql: string): Promise<unknown[]> {
  const connection = await mysql.createConnection({ uri: url, dateStrings: true });
  try {
    const [result] = await connection.query(sql);
    return result as unknown[];
  } finally {
    await connection.end();
  }
}

const SAKILA_MUTATIONS = `
  INSERT INTO actor (actor_id, first_name, last_name, last_update) VALUES
    (1, 'PENELOPE', 'GUINESS', '2006-02-15 04:34:33'), (2, 'NICK', 'WAHLBERG', '2006-02-15 04:34:33');
  ALTER TABLE actor ADD COLUMN nickname varchar(40) NOT NULL DEFAULT 'none';
  UPDATE actor SET nickname = CONCAT('nick-', actor_id), last_update = last_update;
  ALTER TABLE film DROP COLUMN special_features;
  ALTER TABLE customer MODIFY email varchar(100) DEFAULT NULL;
  ALTER TABLE store MODIFY last_update timestamp NULL DEFAULT NULL;
  ALTER TABLE actor DROP INDEX idx_actor_last_name;
  ALTER TABLE payment ADD INDEX extra_amount (amount);
  ALTER TABLE address DROP FOREIGN KEY fk_address_city;
  DROP TABLE film_category;
  CREATE TABLE extra_notes (id int PRIMARY KEY, note text, actor_id int unsigned,
    CONSTRAINT fk_extra_actor FOREIGN KEY (actor_id) REFERENCES actor (actor_id));
  INSERT INTO extra_notes VALUES (1, 'first', 1), (2, 'second', 2);
`;

const corpusUp = corpusAvailable(
  'MySQL migrations on Sakila and Chinook (src/dialects/mysql/mysql.migration.test.ts)',
);

describe.skipIf(!mysqlUp || !corpusUp)('MySQL/MariaDB migrations: Sakila', () => {
  let source: LoadedDatabase;
  let target: LoadedDatabase;
  beforeAll(async () => {
    const schema = readCorpus('sakila', 'mysql-schema.sql');
    [source, target] = await Promise.all([
      loadedDatabase(mysqlDialect, schema, { dropQualifier: 'sakila' }),
      loadedDatabase(mysqlDialect, schema, { dropQualifier: 'sakila' }),
    ]);
    await target.run(SAKILA_MUTATIONS);
  });
  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()]);
  });

  it('plans, applies, leaves nothing, and rolls back to the original hash with the dropped rows', async () => {
    const result = await roundTrip(mysqlDialect, source.handle, target.handle, {
      backup_drops: true,
      plan_id: 'sakila-my',
    });
    const statements = result.migration.statements;
    // Every DDL statement commits by itself on MySQL.
    expect(
      statements
        .filter((s) => !s.kind.startsWith('backup') && !s.kind.startsWith('restore'))
        .every((s) => !s.transactional),
    ).toBe(true);
    // The changes of one table are one ALTER TABLE.
    const actor = statements.filter(
      (s) => s.sql.startsWith('ALTER TABLE `actor`') && !s.sql.includes('DROP COLUMN'),
    );
    expect(actor).toHaveLength(1);
    expect(statements.map((s) => `${s.kind} ${s.object}`)).toEqual(
      expect.arrayContaining([
        'drop_foreign_key extra_notes.fk_extra_actor',
        'create_table film_category',
        'add_foreign_key address.fk_address_city',
        'add_foreign_key film_category.fk_film_category_film',
        'drop_column actor.nickname',
        'drop_table extra_notes',
      ]),
    );
    expectRoundTrip(result, { rollback: true });
    // Read back unchanged, the SQL is the planned migration (statements node-sql-parser cannot read
    // are still recognised by their text).
    const analyzed = await analyzeSql(result.migration.sql, {
      dialect: mysqlDialect,
      target: result.original,
      plan: result.migration,
    });
    expect(analyzed.statements.map((s) => s.planned_index)).toEqual(statements.map((s) => s.index));
    expect(analyzed.rollback_sql).toBe(result.migration.rollback_sql);
    // Restored values, and last_update (ON UPDATE CURRENT_TIMESTAMP) untouched by the restore.
    expect(
      await rows(target.url, 'select actor_id, nickname, last_update from actor order by actor_id'),
    ).toEqual([
      { actor_id: 1, nickname: 'nick-1', last_update: '2006-02-15 04:34:33' },
      { actor_id: 2, nickname: 'nick-2', last_update: '2006-02-15 04:34:33' },
    ]);
    expect(await rows(target.url, 'select id, note, actor_id from extra_notes order by id')).toEqual([
      { id: 1, note: 'first', actor_id: 1 },
      { id: 2, note: 'second', actor_id: 2 },
    ]);
  });
});

describe.skipIf(!mysqlUp || !corpusUp)('MySQL/MariaDB migrations: Chinook', () => {
  it('round-trips a target with retyped, dropped and added objects (rows included)', async () => {
    const schema = readCorpus('chinook', 'mysql.sql');
    const [source, target] = await Promise.all([
      loadedDatabase(mysqlDialect, schema),
      loadedDatabase(mysqlDialect, schema),
    ]);
    try {
      await target.run(`
        ALTER TABLE Track MODIFY Name varchar(300) NOT NULL;
        ALTER TABLE Invoice DROP FOREIGN KEY FK_InvoiceCustomerId;
        ALTER TABLE Artist ADD COLUMN Country varchar(40) DEFAULT 'unknown';
        ALTER TABLE Genre ADD COLUMN Popularity int NOT NULL DEFAULT 0;
        ALTER TABLE InvoiceLine MODIFY Quantity bigint NOT NULL;
        ALTER TABLE MediaType ADD UNIQUE INDEX MediaTypeName (Name);
        DROP TABLE PlaylistTrack;
      `);
      const result = await roundTrip(mysqlDialect, source.handle, target.handle, {
        backup_drops: true,
        plan_id: 'chinook-my',
      });
      expectRoundTrip(result, { rollback: true });
      expect(await rows(target.url, "select count(*) as n from Artist where Country = 'unknown'")).toEqual([
        { n: 275 },
      ]);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });
});

describe.skipIf(!mysqlUp)('MySQL/MariaDB migrations: a statement that fails midway', () => {
  it('a cancelled apply stops between statements; what ran stays', async () => {
    const [source, target] = await Promise.all([
      loadedDatabase(
        mysqlDialect,
        'CREATE TABLE a (id int); CREATE TABLE b (id int); CREATE TABLE c (id int);',
      ),
      loadedDatabase(mysqlDialect, ''),
    ]);
    try {
      const migration = planMigration(
        await source.handle.introspect(),
        await target.handle.introspect(),
        mysqlDialect,
      );
      const controller = new AbortController();
      const result = await target.handle.apply(migration.statements, {
        signal: controller.signal,
        onProgress: ({ done }) => done === 1 && controller.abort(),
      });
      expect(result).toMatchObject({ cancelled: true, failed: null, applied: [0], not_applied: [1, 2] });
      expect((await target.handle.introspect()).tables.map((t) => t.name)).toEqual(['a']);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });

  it('reports exactly which statements took effect and which did not, and rolls nothing back', async () => {
    const [source, target] = await Promise.all([
      loadedDatabase(
        mysqlDialect,
        'CREATE TABLE t (id int PRIMARY KEY, code varchar(10), n int NOT NULL DEFAULT 0, UNIQUE KEY code_key (code)); CREATE TABLE u (id int PRIMARY KEY); CREATE TABLE v (id int PRIMARY KEY, t_id int, CONSTRAINT v_t FOREIGN KEY (t_id) REFERENCES t (id));',
      ),
      loadedDatabase(
        mysqlDialect,
        "CREATE TABLE t (id int PRIMARY KEY, code varchar(10)); INSERT INTO t VALUES (1, 'a'), (2, 'a'); CREATE TABLE v (id int PRIMARY KEY, t_id int);",
      ),
    ]);
    try {
      const migration = planMigration(
        await source.handle.introspect(),
        await target.handle.introspect(),
        mysqlDialect,
      );
      const failing = migration.statements.findIndex((s) => s.sql.includes('ADD UNIQUE INDEX `code_key`'));
      expect(failing).toBeGreaterThan(0);
      expect(failing).toBeLessThan(migration.statements.length - 1);
      const result = await target.handle.apply(migration.statements, { lockTimeoutMs: 2_000 });
      const all = migration.statements.map((s) => s.index);
      expect(result.failed).toMatchObject({
        index: failing,
        error: { cause: 'other', kind: 'constraint_violation', code: 'ER_DUP_ENTRY' },
      });
      expect(result.applied).toEqual(all.filter((i) => i < failing));
      expect(result.not_applied).toEqual(all.filter((i) => i > failing));
      expect(result.rolled_back).toEqual([]);
      // What ran stays: table u exists; the foreign key after the failure was never added.
      const model = await target.handle.introspect();
      expect(model.tables.map((t) => t.name)).toContain('u');
      expect(model.tables.find((t) => t.name === 'v')?.foreign_keys).toEqual([]);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });
});

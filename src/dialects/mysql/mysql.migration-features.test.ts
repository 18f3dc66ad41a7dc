// MySQL/MariaDB migrations of the column and index features a real schema uses, both ways: created
// into an empty target (then rolled back), and dropped from a target that has them with rows (then
// restored by the rollback, rows included).
import mysql from 'mysql2/promise';
import { afterEach, describe, expect, it } from 'vitest';
import { reportSkipped } from '../../../test/support/databases.ts';
import {
  expectRoundTrip,
  type LoadedDatabase,
  loadedDatabase,
  roundTrip,
} from '../../../test/support/migrations.ts';
import { mysqlAvailable, testMysqlUrl } from '../../../test/support/mysql.ts';
import { mysqlDialect } from './mysql.dialect.ts';

const mysqlUp = await mysqlAvailable();
if (!mysqlUp)
  reportSkipped(
    'MySQL migration features (src/dialects/mysql/mysql.migration-features.test.ts)',
    'MySQL',
    testMysqlUrl,
  );

const FEATURES = `
  CREATE TABLE owner (id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, email varchar(100) NOT NULL,
    UNIQUE KEY owner_email (email)) COMMENT = 'owners; with a comment';
  CREATE TABLE item (
    id bigint NOT NULL AUTO_INCREMENT,
    owner_id int unsigned,
    name varchar(60) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT 'it''s' COMMENT 'the name',
    kind enum('a','b','c') NOT NULL DEFAULT 'b',
    tags set('x','y') DEFAULT NULL,
    price decimal(10,2) unsigned NOT NULL DEFAULT 0.00,
    doubled decimal(12,2) AS (price * 2) VIRTUAL,
    stored_name varchar(60) AS (upper(name)) STORED,
    attrs json,
    notes text,
    place point NOT NULL,
    flag tinyint(1) NOT NULL DEFAULT 1,
    updated timestamp(3) NOT NULL DEFAULT current_timestamp(3) ON UPDATE current_timestamp(3),
    PRIMARY KEY (id),
    KEY item_name_prefix (name(10), price DESC),
    FULLTEXT KEY item_notes (notes),
    SPATIAL KEY item_place (place),
    CONSTRAINT item_price CHECK (price < 100000),
    CONSTRAINT item_owner FOREIGN KEY (owner_id) REFERENCES owner (id) ON DELETE SET NULL
  );
  INSERT INTO owner (email) VALUES ('a@example.com'), ('b@example.com');
  INSERT INTO item (owner_id, name, kind, tags, price, attrs, notes, place, updated) VALUES
    (1, 'one', 'a', 'x,y', 9.99, '{"a": 1}', 'first note', POINT(1, 2), '2024-01-01 00:00:00.123'),
    (2, 'two', 'c', NULL, 1.50, NULL, NULL, POINT(3, 4), '2024-02-01 00:00:00.456');
`;

describe.skipIf(!mysqlUp)('MySQL/MariaDB migrations: features', () => {
  const open: LoadedDatabase[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });
  const databases = async (source: string, target: string) => {
    const dbs = await Promise.all([
      loadedDatabase(mysqlDialect, source),
      loadedDatabase(mysqlDialect, target),
    ]);
    open.push(...dbs);
    return dbs;
  };

  it('creates them all in an empty target, and rolls back', async () => {
    const [source, target] = await databases(FEATURES, '');
    expectRoundTrip(await roundTrip(mysqlDialect, source.handle, target.handle), { rollback: true });
  });

  it('drops them all from a target with rows (backup_drops) and puts every row back on rollback', async () => {
    const [source, target] = await databases('', FEATURES);
    const read = async () => {
      const connection = await mysql.createConnection({ uri: target.url, dateStrings: true });
      try {
        const [rows] = await connection.query(
          'select id, owner_id, name, kind, tags, price, doubled, stored_name, attrs, notes, ST_AsText(place) as place, flag, updated from item order by id',
        );
        return rows;
      } finally {
        await connection.end();
      }
    };
    const before = await read();
    const result = await roundTrip(mysqlDialect, source.handle, target.handle, {
      backup_drops: true,
      plan_id: 'features',
    });
    expectRoundTrip(result, { rollback: true });
    expect(await read()).toEqual(before);
  });

  it('changes columns in place with their full definition, both ways', async () => {
    const [source, target] = await databases(
      "CREATE TABLE t (id int PRIMARY KEY, a varchar(40) NOT NULL DEFAULT 'x', b int unsigned, c datetime(3) NULL, d json);",
      "CREATE TABLE t (id int PRIMARY KEY, a varchar(20) NULL, b int, c datetime NULL DEFAULT current_timestamp, d longtext); INSERT INTO t VALUES (1, 'v', 2, NULL, '[]');",
    );
    const result = await roundTrip(mysqlDialect, source.handle, target.handle);
    expect(result.migration.statements.map((s) => s.sql)).toEqual([
      "ALTER TABLE `t` MODIFY COLUMN `a` varchar(40) COLLATE utf8mb4_general_ci NOT NULL DEFAULT 'x'," +
        ' MODIFY COLUMN `b` int unsigned NULL, MODIFY COLUMN `c` datetime(3) NULL,' +
        ' MODIFY COLUMN `d` json COLLATE utf8mb4_bin NULL',
    ]);
    expectRoundTrip(result, { rollback: true });
  });
});

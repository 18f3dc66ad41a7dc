// How SQL is written for MySQL 8 and MariaDB where the engines differ (the SqlWriter of
// ../dialect.ts): `?` placeholders, INSERT … RETURNING on MariaDB only, no row versions, joined
// UPDATE and DELETE with JOIN, `<=>` for null-safe equality, and triggers that always fire.
import mysql from 'mysql2/promise';
import { MYSQL_BACKUP_PREFIX } from '../../engine/migration/backup.ts';
import type { SqlWriter } from '../dialect.ts';

// The second argument forbids splitting on dots: a name is one identifier, never `db.table`.
const q = (name: string) =>
  (mysql.escapeId as (value: string, forbidQualified: boolean) => string)(name, true);

export const mysqlSqlWriter: SqlWriter = {
  capabilities: {
    transactionalDdl: false,
    schemasInDatabase: false,
    pausableTriggers: false,
    rowVersions: null,
    // No server-side record of a past transaction's outcome.
    transactionOutcomes: null,
    // Aria counts whatever its TRANSACTIONAL option: that makes it crash-safe, not able to roll back.
    nonTransactionalTablesSql: `SELECT t.TABLE_NAME AS table_name, t.ENGINE AS engine
      FROM information_schema.TABLES t JOIN information_schema.ENGINES e ON e.ENGINE = t.ENGINE
      WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE' AND e.TRANSACTIONS = 'NO'`,
    keyOrderedTables: {
      planSql: (statement) => `EXPLAIN ${statement}`,
      // ALL reads the table's rows, `index` a whole index (the primary key is the table in InnoDB).
      readsWholeTable: (plan) => ['ALL', 'index'].includes(String(plan[0]?.type)),
      inKeyOrder: (from) => `${from} FORCE INDEX (PRIMARY)`,
      // NOW(), CURRENT_TIMESTAMP and ON UPDATE columns read the session's timestamp when it is set.
      clockStoppedSql: 'SET SESSION timestamp = UNIX_TIMESTAMP(NOW(6))',
      clockRunsSql: 'SET SESSION timestamp = DEFAULT',
    },
  },
  quoteIdent: q,
  placeholder: () => '?',
  returning: (flavor) => ({ insert: flavor === 'mariadb', inWith: false }),
  // No second schema to write to: beside the data, under a prefix introspection leaves out.
  ownTable: (name) => q(`${MYSQL_BACKUP_PREFIX}${name}`),
  ownTablesSetup: () => [],
  /**
   * LIKE copies every index, each paid for on every copied row; joins need the key's, and an
   * AUTO_INCREMENT column needs one to be legal: those stay, the others are dropped.
   */
  createEmptyCopy(into, from, table, key) {
    const autoIncrement = new Set(table.columns.filter((c) => c.auto_increment).map((c) => c.name));
    const needed = (columns: string[]) =>
      (columns.length === key.length && columns.every((c, i) => c === key[i])) ||
      columns.some((c) => autoIncrement.has(c));
    const extra = table.indexes.filter((index) => !needed(index.columns)).map((index) => index.name);
    return [
      `CREATE TABLE ${into} LIKE ${from}`,
      ...(extra.length === 0
        ? []
        : [`ALTER TABLE ${into} ${extra.map((name) => `DROP INDEX ${q(name)}`).join(', ')}`]),
    ];
  },
  sameValue: (left, right) => `${left} <=> ${right}`,
  updateFrom: (target, source, on, columns, values) =>
    `UPDATE ${target.table} ${target.alias} JOIN ${source.table} ${source.alias} ON ${on} ` +
    `SET ${columns.map((c) => `${target.alias}.${q(c)} = ${values?.[c] ?? `${source.alias}.${q(c)}`}`).join(', ')}`,
  deleteJoined: (target, source, on) =>
    `DELETE ${target.alias} FROM ${target.table} ${target.alias} JOIN ${source.table} ${source.alias} ON ${on}`,
  insertAsGiven: (table, columns, select) => `INSERT INTO ${table} (${columns}) ${select}`,
  // ANALYZE TABLE commits the transaction it runs in.
  analyzeSql: () => null,
  pauseTriggers: async () => ({ state: 'unsupported' }),
};

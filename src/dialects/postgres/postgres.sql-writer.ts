// How SQL is written for PostgreSQL where the engines differ (the SqlWriter of ../dialect.ts): `$n`
// placeholders, RETURNING everywhere (and in WITH), row versions from `xmin`, joined UPDATE … FROM
// and DELETE … USING, and triggers that can be disabled inside a transaction.
import pg from 'pg';
import { BACKUP_SCHEMA } from '../../engine/migration/backup.ts';
import type { SqlWriter, TargetTransaction } from '../dialect.ts';
import type { PausedTriggers } from '../execution.ts';

const q = (name: string) => pg.escapeIdentifier(name);

/** pg_trigger.tgenabled → the clause that enables a trigger in that mode again. */
const ENABLE: Record<string, string> = { O: 'ENABLE', R: 'ENABLE REPLICA', A: 'ENABLE ALWAYS' };

/**
 * Disabling is an ALTER TABLE: only the table's owner may, and it locks the table until the commit.
 * A refusal must not abort the caller's transaction, hence the savepoint.
 */
async function pauseTriggers(tx: TargetTransaction, table: string): Promise<PausedTriggers> {
  const triggers = (
    await tx.query(
      `SELECT tgname AS name, tgenabled::text AS mode FROM pg_trigger
       WHERE tgrelid = $1::regclass AND NOT tgisinternal AND tgenabled <> 'D'`,
      [table],
    )
  ).rows as { name: string; mode: string }[];
  if (triggers.length === 0) return { state: 'none' };
  await tx.query('SAVEPOINT dbops_pause_triggers');
  try {
    await tx.query(`ALTER TABLE ${table} ${triggers.map((t) => `DISABLE TRIGGER ${q(t.name)}`).join(', ')}`);
    await tx.query('RELEASE SAVEPOINT dbops_pause_triggers');
  } catch (error) {
    await tx.query('ROLLBACK TO SAVEPOINT dbops_pause_triggers');
    return { state: 'firing', reason: error instanceof Error ? error.message : String(error) };
  }
  return {
    state: 'paused',
    async resume() {
      await tx.query(
        `ALTER TABLE ${table} ${triggers.map((t) => `${ENABLE[t.mode] ?? 'ENABLE'} TRIGGER ${q(t.name)}`).join(', ')}`,
      );
    },
  };
}

export const postgresSqlWriter: SqlWriter = {
  capabilities: {
    transactionalDdl: true,
    schemasInDatabase: true,
    pausableTriggers: true,
    rowVersions: {
      // xmin holds the 32-bit transaction id; txid_current() adds the epoch above it.
      currentSql: 'SELECT txid_current() % 4294967296 AS version',
      writtenBy: (alias, version) => (/^\d+$/.test(version) ? `(${alias}.xmin = '${version}'::xid)` : null),
    },
    // The 64-bit id (with its epoch), which txid_status (PostgreSQL 10+) takes.
    transactionOutcomes: {
      currentSql: 'SELECT txid_current()::text AS id',
      statusSql: 'SELECT txid_status($1::bigint) AS status',
    },
    // Every table takes part in transactions.
    nonTransactionalTablesSql: null,
    // A heap: rows lie where they were written; row versions spare the after-image pass anyway.
    keyOrderedTables: null,
  },
  quoteIdent: q,
  placeholder: (position) => `$${position}`,
  returning: () => ({ insert: true, inWith: true }),
  ownTable: (name) => `${q(BACKUP_SCHEMA)}.${q(name)}`,
  ownTablesSetup: () => [`CREATE SCHEMA IF NOT EXISTS ${q(BACKUP_SCHEMA)}`],
  // LIKE copies the columns only: hash joins need no index.
  createEmptyCopy: (into, from) => [`CREATE TABLE ${into} (LIKE ${from})`],
  // Through text: some types (json, point) have no equality operator.
  sameValue: (left, right) => `${left}::text IS NOT DISTINCT FROM ${right}::text`,
  // SET names the target's columns unqualified.
  updateFrom: (target, source, on, columns, values) =>
    `UPDATE ${target.table} AS ${target.alias} SET ${columns.map((c) => `${q(c)} = ${values?.[c] ?? `${source.alias}.${q(c)}`}`).join(', ')} ` +
    `FROM ${source.table} ${source.alias} WHERE ${on}`,
  deleteJoined: (target, source, on) =>
    `DELETE FROM ${target.table} AS ${target.alias} USING ${source.table} ${source.alias} WHERE ${on}`,
  // GENERATED ALWAYS identities refuse given values without it.
  insertAsGiven: (table, columns, select) =>
    `INSERT INTO ${table} (${columns}) OVERRIDING SYSTEM VALUE ${select}`,
  analyzeSql: (table) => `ANALYZE ${table}`,
  pauseTriggers,
};

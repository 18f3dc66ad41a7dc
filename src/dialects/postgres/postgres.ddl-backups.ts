// The backups of dropped data as PostgreSQL DDL (`backup_drops`): a dropped table or column is
// copied into the service's own schema first, and the rollback puts the rows back from there. User
// types are kept as text, so that a backup never holds on to a type the migration drops.
import { BACKUP_SCHEMA } from '../../engine/migration/backup.ts';
import type { MigrationOperation } from '../../engine/migration/operations.ts';
import type { ColumnModel } from '../../engine/schema/model.ts';
import { id, isUserType, list, lit, named, table } from './postgres.ddl-names.ts';
import { syncSequence } from './postgres.ddl-sequences.ts';

const backupTable = (name: string) => named(BACKUP_SCHEMA, name);

/** How a column is copied into a backup: user types as text, so the backup never pins a type that must go. */
const backupValue = (column: ColumnModel) =>
  isUserType(column.type) ? `${id(column.name)}::text AS ${id(column.name)}` : id(column.name);
const restoredValue = (alias: string, column: ColumnModel) =>
  isUserType(column.type) ? `${alias}.${id(column.name)}::${column.type}` : `${alias}.${id(column.name)}`;

/** The statements of a backup or restore operation, or null for any other operation. */
export function renderBackupOperation(op: MigrationOperation): string[] | null {
  switch (op.kind) {
    case 'ensure_backup_schema':
      return [`CREATE SCHEMA IF NOT EXISTS ${id(BACKUP_SCHEMA)}`];
    case 'backup_column':
      return [
        `CREATE TABLE ${backupTable(op.backup)} AS SELECT ${[...op.key, op.column].map(backupValue).join(', ')} FROM ${table(op.table)}`,
      ];
    case 'restore_column': {
      const match = op.key.map((k) => `t.${id(k.name)} = ${restoredValue('b', k)}`).join(' AND ');
      const update =
        `UPDATE ${table(op.table)} AS t SET ${id(op.column.name)} = ${restoredValue('b', op.column)}` +
        ` FROM ${backupTable(op.backup)} AS b WHERE ${match}`;
      // User triggers (a last_update stamp) must not rewrite other columns while values come back.
      if (!op.disableTriggers) return [update];
      return [
        `ALTER TABLE ${table(op.table)} DISABLE TRIGGER USER`,
        update,
        `ALTER TABLE ${table(op.table)} ENABLE TRIGGER USER`,
      ];
    }
    case 'drop_backup':
      return [`DROP TABLE ${backupTable(op.backup)}`];
    case 'backup_table':
      // ONLY: a parent's rows without its children's (each child is backed up on its own), and none
      // for a partitioned table, whose rows all live in its partitions.
      return [
        `CREATE TABLE ${backupTable(op.backup)} AS SELECT ${op.table.columns.map(backupValue).join(', ')} FROM ONLY ${table(op.table)}`,
      ];
    case 'restore_table': {
      const columns = op.table.columns.filter((c) => c.generated === null);
      const from = `FROM ${backupTable(op.backup)} AS b`;
      // A table without columns still has rows: INSERT … SELECT FROM copies them.
      const sql = [
        columns.length === 0
          ? `INSERT INTO ${table(op.table)} SELECT ${from}`
          : `INSERT INTO ${table(op.table)} (${list(columns.map((c) => c.name))}) OVERRIDING SYSTEM VALUE` +
            ` SELECT ${columns.map((c) => restoredValue('b', c)).join(', ')} ${from}`,
      ];
      for (const column of op.table.columns)
        if (column.identity !== null) sql.push(syncSequence(op.table, column.name, null));
      for (const sequence of op.sequences)
        if (sequence.owned_by !== null)
          sql.push(
            syncSequence(
              op.table,
              sequence.owned_by.column,
              `${lit(named(sequence.schema, sequence.name))}::regclass`,
            ),
          );
      return sql;
    }
    default:
      return null;
  }
}

// Backups of dropped data (`backup_drops`): where a dropped table or column is copied before it goes,
// so that the rollback restores its rows. The objects are this service's own: tables in the
// PostgreSQL schema `dbops_backup`, or MySQL tables prefixed `_dbops_bak_`; introspection and drift
// never report them.
//
// The rollback drops each backup right after the restore that read it (the undoing of a backup is
// its drop, invert.ts). This reverses an earlier rule that removing backups was only ever an
// operator's decision: once the rollback has put the rows back, the backup has done its job and
// holds nothing the target does not, and backup tables left behind in their databases are what
// users reported (they are the users' databases, not our storage). A backup whose rollback did not
// run, or did not get that far, stays and is listed on the migration (`backup_tables`).
import { BACKUP_SCHEMA, traitsOf } from '../schema/engine-traits.ts';
import type { ColumnModel, DialectName, TableModel } from '../schema/model.ts';

export { BACKUP_SCHEMA };
export const MYSQL_BACKUP_PREFIX = traitsOf('mysql').backups.prefix;

// Both engines limit identifiers to 63/64 characters; names are cut to fit and stay unique by the
// plan id and the running number.
const MAX_IDENTIFIER = 63;

/** How a person finds a backup table in the target: `dbops_backup.name`, or the MySQL table's name. */
export function backupTableName(dialect: DialectName, name: string): string {
  return traitsOf(dialect).backups.displayName(name);
}

/** The backup table's name: the plan id, a running number and the table (and column) it keeps. */
export function backupName(
  dialect: DialectName,
  planId: string,
  n: number,
  table: string,
  column?: string,
): string {
  const id = planId.replace(/[^A-Za-z0-9]/g, '').slice(0, 16) || 'plan';
  const prefix = traitsOf(dialect).backups.prefix;
  const subject = column === undefined ? table : `${table}_${column}`;
  return `${prefix}${id}_${n}_${subject}`.slice(0, MAX_IDENTIFIER);
}

/**
 * A key that finds each row again when a dropped column's values are put back: the primary key, else
 * a unique constraint or plain unique index whose columns are all NOT NULL. `usable` says whether a
 * column keeps its values through the plan (not dropped, not retyped). Null when there is none.
 */
export function backupKey(table: TableModel, usable: (column: ColumnModel) => boolean): ColumnModel[] | null {
  const byName = new Map(table.columns.map((column) => [column.name, column]));
  const resolve = (names: string[]): ColumnModel[] | null => {
    const columns = names.map((name) => byName.get(name));
    if (columns.length === 0 || columns.some((c) => c === undefined || c.nullable || !usable(c))) return null;
    return columns as ColumnModel[];
  };
  const candidates: string[][] = [];
  if (table.primary_key) candidates.push(table.primary_key.columns);
  for (const constraint of table.unique_constraints) candidates.push(constraint.columns);
  for (const index of table.indexes) {
    // Only plain column parts: an expression or a prefix does not identify a row by value.
    if (index.unique && index.predicate === null && index.columns.every((part) => byName.has(part)))
      candidates.push(index.columns);
  }
  for (const names of candidates) {
    const key = resolve(names);
    if (key) return key;
  }
  return null;
}

// The backup tables a migration's apply made in its target (`backup_drops`) and that are still
// there, as this service left them: an apply adds the backups its statements that took effect
// filled, a rollback removes those its statements that took effect dropped (each right after the
// restore that read it, backup.ts). Kept on the migration so that the resource can list them
// without asking the target.
import type {
  StoredBackupTable,
  StoredMigrationStatement,
  StoredRollbackStatement,
} from '../../store/tables.ts';
import type { MigrationOperation } from './migration-states.ts';

/** Backups are removed only by a rollback or an operator: none of them has a date of its own yet. */
export interface BackupTable {
  name: string;
  kept_until: Date | null;
}

export function backupTablesAfter(
  operation: MigrationOperation,
  current: StoredBackupTable[],
  statements: (StoredMigrationStatement | StoredRollbackStatement)[],
  tookEffect: number[],
): StoredBackupTable[] {
  const names = tookEffect.map((index) => {
    const statement = statements[index];
    if (!statement) return null;
    return operation === 'apply'
      ? 'backup' in statement
        ? statement.backup
        : null
      : 'drops_backup' in statement
        ? statement.drops_backup
        : null;
  });
  const touched = new Set(names.filter((name): name is string => typeof name === 'string'));
  if (operation === 'rollback') return current.filter((table) => !touched.has(table.name));
  const known = new Set(current.map((table) => table.name));
  return [...current, ...[...touched].filter((name) => !known.has(name)).map((name) => ({ name }))];
}

export function backupTablesOf(stored: StoredBackupTable[]): BackupTable[] {
  return stored.map((table) => ({ name: table.name, kept_until: null }));
}

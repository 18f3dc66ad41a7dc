// A rollback restores rows exactly as they were, so the table's own triggers must not fire while it
// does: a `last_update` trigger would stamp every restored row with the time of the rollback.
// PostgreSQL can disable a table's triggers inside the rollback's transaction (an ALTER TABLE: only
// the table's owner may, and it locks the table until the commit); they are enabled again, each
// in the mode it had, before the commit. MySQL cannot disable triggers: there the rollback's
// verification reports the rows a trigger changed.
import type { TargetTransaction } from '../../dialects/dialect.ts';
import { quoteName } from './patch-images.ts';

const ENABLE: Record<string, string> = { O: 'ENABLE', R: 'ENABLE REPLICA', A: 'ENABLE ALWAYS' };

export type PausedTriggers =
  /** The table has no enabled user trigger. */
  | { state: 'none' }
  /** They are disabled until `resume`. */
  | { state: 'paused'; resume(): Promise<void> }
  /** They could not be disabled (not the table's owner) and will fire. */
  | { state: 'firing'; reason: string };

/** Disables the enabled user triggers of `tableSql` (a quoted PostgreSQL table name) in `tx`. */
export async function pauseTriggers(tx: TargetTransaction, tableSql: string): Promise<PausedTriggers> {
  const triggers = (
    await tx.query(
      `SELECT tgname AS name, tgenabled::text AS mode FROM pg_trigger
       WHERE tgrelid = $1::regclass AND NOT tgisinternal AND tgenabled <> 'D'`,
      [tableSql],
    )
  ).rows as { name: string; mode: string }[];
  if (triggers.length === 0) return { state: 'none' };
  const name = (trigger: { name: string }) => quoteName('postgresql', trigger.name);
  // A refused ALTER would abort the whole transaction: the savepoint keeps it usable.
  await tx.query('SAVEPOINT dbops_pause_triggers');
  try {
    await tx.query(`ALTER TABLE ${tableSql} ${triggers.map((t) => `DISABLE TRIGGER ${name(t)}`).join(', ')}`);
    await tx.query('RELEASE SAVEPOINT dbops_pause_triggers');
  } catch (error) {
    await tx.query('ROLLBACK TO SAVEPOINT dbops_pause_triggers');
    return { state: 'firing', reason: error instanceof Error ? error.message : String(error) };
  }
  return {
    state: 'paused',
    async resume() {
      await tx.query(
        `ALTER TABLE ${tableSql} ${triggers.map((t) => `${ENABLE[t.mode] ?? 'ENABLE'} TRIGGER ${name(t)}`).join(', ')}`,
      );
    },
  };
}

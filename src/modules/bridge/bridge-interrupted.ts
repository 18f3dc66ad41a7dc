// After the process of a bridge run died (kill -9, a lost machine) while the target's foreign keys
// among the copied tables were set aside for the load (bridge-load.ts), the sweep fails the run as
// interrupted and calls here. The run journalled, before dropping them, how to add each key back
// (`keys_set_aside` in its reported result): each is added back NOT VALID where it is missing, then
// validated. The tables being loaded when the process died rolled back on their own (each loads in
// one transaction, its indexes dropped and rebuilt inside it), so the keys are all that is left to
// restore. The run's error then says what was put back, and which key did not hold its rows.
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { amendInterruptedRun } from '../runs/runs.repo.ts';
import type { KeySetAside } from './bridge-load.ts';
import type { BridgeParams } from './bridge-params.ts';

export function createBridgeInterrupted(deps: {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
}) {
  const { db, connections } = deps;

  return async function interrupted(run: Run): Promise<void> {
    const reported = (run.result ?? {}) as { keys_set_aside?: KeySetAside[] };
    const keys = reported.keys_set_aside ?? [];
    if (keys.length === 0) return;
    const connectionId = (run.params as Partial<BridgeParams>).target_connection_id;
    const target = connectionId ? await connections.findById(connectionId) : undefined;
    const { keys_set_aside: _, ...result } = reported;
    if (!target) {
      await amendInterruptedRun(db, run.id, {
        error: `interrupted: the process working this run stopped with foreign keys set aside, and the target connection is gone: ${keys.map((k) => `${k.name} of ${k.table}`).join(', ')}`,
        result,
      });
      return;
    }
    const problems = await connections
      .withTarget(target, async (handle) => {
        const session = await handle.rowSession();
        try {
          return await restoreKeys(session, keys);
        } finally {
          await session.close();
        }
      })
      .catch((error: unknown) => [`the target could not be reached to add them back (${errorText(error)})`]);
    await amendInterruptedRun(db, run.id, {
      error:
        `interrupted: the process working this run stopped; the tables it was loading rolled back, ` +
        `and the foreign keys it had set aside are back (${keys.map((k) => k.name).join(', ')})` +
        (problems.length > 0 ? `, except: ${problems.join('; ')}` : ''),
      result,
    });
  };
}

/** Adds each key back where it is missing and validates it: the problems, each naming its key. */
async function restoreKeys(
  session: { query(sql: string): Promise<unknown> },
  keys: KeySetAside[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const key of keys) {
    try {
      await session.query('BEGIN');
      for (const statement of key.add) await session.query(statement);
      await session.query('COMMIT');
    } catch {
      // Already there: the process died before the keys were dropped, or after they were back.
      await session.query('ROLLBACK').catch(() => {});
    }
    try {
      await session.query(key.validate);
    } catch (error) {
      problems.push(`${key.name} of ${key.table} is back but not valid (NOT VALID): ${errorText(error)}`);
    }
  }
  return problems;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

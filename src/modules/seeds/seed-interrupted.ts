// After the process of a seed run died (kill -9, a lost machine), the sweep fails the run as
// interrupted and calls here to say what it left. The run writes every table in one transaction
// (seed-load.ts) and reports that transaction's id just before its COMMIT: without that report,
// nothing was committed; with it, the target's server tells whether the COMMIT landed
// (runs/transaction-outcome.ts). Running a scenario adds rows, so the error says plainly whether
// running it again would seed a second time; where the engine cannot tell (MySQL), it says so.

import { countOf } from '../../core/plural.ts';
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { amendInterruptedRun } from '../runs/runs.repo.ts';
import { outcomeOnConnection } from '../runs/transaction-outcome.ts';

type TableRows = { table: string; rows: number };

/** What the run reported just before its COMMIT (seed-run.ts). */
interface Reported {
  tables?: TableRows[];
  committing?: { transaction: string | null };
}

const STOPPED = 'interrupted: the process working this run stopped';

export function createSeedInterrupted(deps: {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
}) {
  const { db, connections } = deps;

  return async function interrupted(run: Run): Promise<void> {
    const reported = (run.result ?? {}) as Reported;
    const nothing = { tables: [], rows_total: 0 };
    if (!reported.committing) {
      await amendInterruptedRun(db, run.id, {
        error: `${STOPPED} before its commit; nothing was written`,
        result: nothing,
      });
      return;
    }
    const connectionId = (run.params as { connection_id?: string }).connection_id;
    const outcome = await outcomeOnConnection(connections, connectionId, reported.committing.transaction);
    const tables = reported.tables ?? [];
    const written = { tables, rows_total: tables.reduce((n, t) => n + t.rows, 0) };
    if (outcome === 'committed')
      await amendInterruptedRun(db, run.id, {
        error: `${STOPPED} during its commit, which landed: every table was seeded (${countOf(written.rows_total, 'row')}); running it again would seed them again`,
        result: written,
      });
    else if (outcome === 'rolled_back')
      await amendInterruptedRun(db, run.id, {
        error: `${STOPPED} during its commit, which did not land; nothing was written`,
        result: nothing,
      });
    else
      await amendInterruptedRun(db, run.id, {
        error: `${STOPPED} during its commit; the server cannot tell whether it landed: every table was seeded or none (look before running it again)`,
        result: nothing,
      });
  };
}

// After the process of an in-place anonymization died (kill -9, a lost machine), the sweep fails
// the run as interrupted and calls here to say what it did. Each table group commits on its own
// (anonymize-run.ts), and the run reported the groups done as it went, and the group it was
// committing with its transaction's id: the target's server tells whether that COMMIT landed
// (runs/transaction-outcome.ts). The run's error and result then name the tables anonymised and the
// ones untouched; where the engine cannot tell (MySQL), the committing group's tables are named as
// not known.
import type { Db } from '../../store/db.ts';
import type { Run } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { amendInterruptedRun } from '../runs/runs.repo.ts';
import { outcomeOnConnection } from '../runs/transaction-outcome.ts';

type TableRows = { table: string; rows: number };

/** What the run reported (anonymize-run.ts), as the sweep found it. */
interface Reported {
  tables?: TableRows[];
  tables_not_done?: string[];
  committing?: { tables: TableRows[]; transaction: string | null };
}

export function createAnonymizeInterrupted(deps: {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
}) {
  const { db, connections } = deps;

  return async function interrupted(run: Run): Promise<void> {
    const reported = (run.result ?? {}) as Reported;
    const done = [...(reported.tables ?? [])];
    let unknown: string[] = [];
    if (reported.committing) {
      const { tables, transaction } = reported.committing;
      const connectionId = (run.params as { connection_id?: string }).connection_id;
      const outcome = await outcomeOnConnection(connections, connectionId, transaction);
      if (outcome === 'committed') done.push(...tables);
      else if (outcome === 'unknown') unknown = tables.map((t) => t.table);
    }
    const names = done.map((t) => t.table);
    const notDone = (reported.tables_not_done ?? []).filter(
      (t) => !names.includes(t) && !unknown.includes(t),
    );
    const said = [
      'interrupted: the process working this run stopped',
      names.length > 0 ? `anonymised: ${names.join(', ')}` : 'no table was anonymised',
      ...(notDone.length > 0 ? [`untouched: ${notDone.join(', ')}`] : []),
      ...(unknown.length > 0
        ? [`not known (the server cannot tell whether their last commit landed): ${unknown.join(', ')}`]
        : []),
    ];
    await amendInterruptedRun(db, run.id, {
      error: said.join('; '),
      result: {
        tables: done,
        rows_total: done.reduce((sum, t) => sum + t.rows, 0),
        tables_done: names,
        tables_not_done: notDone,
        ...(unknown.length > 0 && { tables_not_known: unknown }),
      },
    });
  };
}

// Whether a target transaction a run committed last did commit, asked after its process died: a
// kill -9 between COMMIT and its answer leaves the run not knowing, and the server knows. The run
// records the transaction's id before it commits (RunContext.report); its kind's `interrupted`
// hook asks here. Engines that keep no such record (MySQL) answer `unknown`.
import type { SqlWriter, TargetHandle, TargetTransaction } from '../../dialects/dialect.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';

export type TransactionOutcome = 'committed' | 'rolled_back' | 'unknown';

/** A transaction the dead worker's server may still be ending (it notices the lost client late). */
const IN_PROGRESS_WAIT_MS = 15_000;
const POLL_MS = 200;

/** The id of the transaction open on `tx`, to ask about later; null when the engine cannot tell. */
export async function openTransactionId(tx: TargetTransaction, sql: SqlWriter): Promise<string | null> {
  const outcomes = sql.capabilities.transactionOutcomes;
  if (!outcomes) return null;
  const { rows } = await tx.query(outcomes.currentSql);
  return String((rows[0] as { id: unknown }).id);
}

/** What became of the transaction `id` (from openTransactionId); null asks about nothing. */
export async function transactionOutcome(
  handle: Pick<TargetHandle, 'transaction'>,
  sql: SqlWriter,
  id: string | null,
): Promise<TransactionOutcome> {
  const outcomes = sql.capabilities.transactionOutcomes;
  if (!outcomes || id === null) return 'unknown';
  const deadline = Date.now() + IN_PROGRESS_WAIT_MS;
  for (;;) {
    const status = await handle.transaction(
      async (tx) => (await tx.query(outcomes.statusSql, [id])).rows[0]?.status,
      { commit: false },
    );
    if (status === 'committed') return 'committed';
    if (status === 'aborted') return 'rolled_back';
    // In progress: its client is dead, so it cannot commit unless COMMIT was already received.
    if (status !== 'in progress' || Date.now() > deadline) return 'unknown';
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** transactionOutcome on the connection `connectionId` (a run's); unknown when it is gone or unreachable. */
export async function outcomeOnConnection(
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>,
  connectionId: string | undefined,
  id: string | null,
): Promise<TransactionOutcome> {
  const connection = connectionId ? await connections.findById(connectionId) : undefined;
  if (!connection || id === null) return 'unknown';
  return connections
    .withTarget(connection, (handle) => transactionOutcome(handle, handle.sql, id))
    .catch((): TransactionOutcome => 'unknown');
}

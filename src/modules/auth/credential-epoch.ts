// The credential epoch of the store (migration 0023_credential_epoch): a counter that the store
// bumps, in the committing transaction, whenever what a key or session resolves to changes. A
// cached principal is used only while the epoch read for the request equals the one it was cached
// under, so a revocation made by any process is refused by every process from its next request.
//
// PostgreSQL: one read of the one-row table per request (a primary-key lookup, no join), because
// only the store knows what other processes committed; a notification alone could arrive after the
// next request. The embedded store is one process (DATA_DIR is locked), so every commit passes
// through this process's PGlite, which hands the trigger's `pg_notify` to the listener before the
// committing query's promise settles: counting the notifications is exact and costs no query.
import { CompiledQuery, sql } from 'kysely';
import type { Store } from '../../store/db.ts';

export interface CredentialEpoch {
  /** The epoch a principal cached now must carry to be used for this request. */
  read(): Promise<string>;
  /**
   * True when the epoch is the store's own value, which a route's query can read beside its rows
   * (`epochColumn`, src/http/confirmed-read.ts); the embedded store's is this process's count.
   */
  inQuery: boolean;
  close(): Promise<void>;
}

const CHANNEL = 'credential_epoch';
const READ = CompiledQuery.raw('select "epoch"::text as "epoch" from "credential_epoch"');

/** The epoch as a column of a route's own query, read in the same snapshot as its rows. */
export const epochColumn = sql<string>`(select "epoch"::text from "credential_epoch")`;

export async function createCredentialEpoch(store: Store): Promise<CredentialEpoch> {
  const { pglite } = store;
  if (pglite) {
    let notified = 0;
    const unlisten = await pglite.listen(CHANNEL, () => {
      notified++;
    });
    return {
      inQuery: false,
      read: async () => String(notified),
      close: () => unlisten(),
    };
  }
  return {
    inQuery: true,
    async read() {
      const { rows } = await store.db.executeQuery<{ epoch: string }>(READ);
      const epoch = rows[0]?.epoch;
      if (epoch === undefined) throw new Error('The credential_epoch row is missing (store migration 0023)');
      return epoch;
    },
    async close() {},
  };
}

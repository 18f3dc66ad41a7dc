// Which workers are provably alive, so that the runs of a process that died (kill -9, a lost
// machine) are failed at the next sweep instead of after the heartbeat's grace period.
//
// PostgreSQL: every process that works runs holds a session-level advisory lock, keyed by its
// worker id, on a connection of its own for as long as it lives; the server releases it when that
// session ends, however the process ended. A worker whose lock nobody holds is gone. The embedded
// store belongs to one process (DATA_DIR is locked), so every worker but this one is gone.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { sql } from 'kysely';
import pg from 'pg';
import type { Store } from '../store/db.ts';

/** The first key of the two-key advisory lock: `dbop`, so that other users of the locks keep apart. */
const LOCK_SPACE = 0x64626f70;

export interface WorkerLiveness {
  /** The workers among `workerIds` that are alive; the others are gone for certain. */
  alive(workerIds: readonly string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

/** The second key: 32 bits of the worker id's hash, as the signed int4 the lock functions take. */
function lockKey(workerId: string): number {
  return createHash('sha256').update(workerId).digest().readInt32BE(0);
}

/** This process's worker id: host and pid, and a random part, since a restarted container reuses both. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

export async function createWorkerLiveness(
  store: Store,
  workerId: string,
  onError: (error: Error) => void,
): Promise<WorkerLiveness> {
  if (!store.url) {
    // Several compositions of one process (tests) share the store: this process's are all alive.
    const ours = workerId.slice(0, workerId.lastIndexOf(':') + 1);
    return { alive: async (ids) => new Set(ids.filter((id) => id.startsWith(ours))), close: async () => {} };
  }
  const url = store.url;
  let holder: pg.Client | undefined;
  let closed = false;

  /** (Re)takes this worker's lock on a session of its own; a lost session is retaken on the next check. */
  async function hold(): Promise<void> {
    if (holder || closed) return;
    const client = new pg.Client({ connectionString: url, application_name: 'dbops worker lock' });
    client.on('error', (error) => {
      onError(error);
      if (holder === client) holder = undefined;
    });
    await client.connect();
    await client.query('select pg_advisory_lock($1, $2)', [LOCK_SPACE, lockKey(workerId)]);
    holder = client;
  }
  await hold();

  return {
    async alive(ids) {
      await hold().catch(onError);
      if (ids.length === 0) return new Set();
      // pg_locks shows the int4 keys as oids (unsigned): compared as unsigned numbers.
      const { rows } = await sql<{ key: string }>`select objid::int8::text as key from pg_locks
        where locktype = 'advisory' and granted and objsubid = 2 and classid::int8 = ${LOCK_SPACE}
          and database = (select oid from pg_database where datname = current_database())`.execute(store.db);
      const held = new Set(rows.map((row) => Number(row.key)));
      return new Set(ids.filter((id) => held.has(lockKey(id) >>> 0)));
    },
    async close() {
      closed = true;
      await holder?.end().catch(() => {});
      holder = undefined;
    },
  };
}

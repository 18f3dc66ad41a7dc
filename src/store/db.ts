// The service store: Kysely over the embedded PGlite (default, data in DATA_DIR) or over a
// PostgreSQL server (DATABASE_URL). One SQL dialect either way; the job queue shares it.
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { type DataDirLock, lockDataDir } from './data-dir-lock.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { preparingPool } from './prepared-statements.ts';
import type { Database } from './tables.ts';

export type Db = Kysely<Database>;

export type StoreLocation =
  /**
   * `preparedStatements`: name each data statement (./prepared-statements.ts), default on;
   * `poolSize`: connections of this process, default 10.
   */
  | { kind: 'postgres'; url: string; preparedStatements?: boolean; poolSize?: number }
  | { kind: 'pglite'; dataDir: string }
  /**
   * In memory, for tests without a PostgreSQL server. `template`: a data directory to start from (a
   * PGlite `dumpDataDir()` tarball) instead of running initdb, which costs seconds of CPU per store:
   * tests start theirs from one built once (test/support/store-template.ts).
   */
  | { kind: 'pglite-memory'; template?: Blob };

export interface Store {
  db: Db;
  /** The PGlite instance, when embedded: pg-boss runs on it through its PGlite adapter. */
  pglite: PGlite | undefined;
  /** The server's URL, when the store is PostgreSQL: pg-boss opens its own pool on it. */
  url: string | undefined;
  /**
   * Whether the store keeps each data statement's plan (named prepared statements on PGlite and on a
   * PostgreSQL server) or plans it on every run (STORE_PREPARED_STATEMENTS=false): a query may then
   * trade planning time for execution time, or not.
   */
  plansCached: boolean;
  /** The PostgreSQL store's pool, as a metric reads it (src/observability/scrape-gauges.ts). */
  poolConnections?(): { active: number; idle: number; waiting: number };
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function storeLocation(config: {
  databaseUrl: string | undefined;
  dataDir: string;
  storePreparedStatements: boolean;
}): StoreLocation {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl, preparedStatements: config.storePreparedStatements }
    : { kind: 'pglite', dataDir: config.dataDir };
}

export async function openStore(location: StoreLocation): Promise<Store> {
  if (location.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: location.url,
      max: location.poolSize ?? 10,
      application_name: 'dbops',
    });
    // An idle connection ended by the server (restart, failover, pg_terminate_backend) is an 'error'
    // event on the pool, which would end the process without a listener. The pool has already dropped
    // that connection and opens a new one for the next query, so there is nothing else to do.
    pool.on('error', () => {});
    // A connection that dies under a query (the server restarted, the network cut) rejects the query
    // and then also emits 'error' on its client, which the pool leaves without a listener while the
    // client is checked out: unheard, it would end the process. The query's own rejection is what
    // reports it (503, src/http/errors.ts); the pool drops the dead client when it is released.
    pool.on('connect', (client) => client.on('error', () => {}));
    const dialect = new PostgresDialect({
      pool: location.preparedStatements === false ? pool : preparingPool(pool),
    });
    const db = new Kysely<Database>({ dialect });
    return {
      ...storeOf(db, undefined, location.url, location.preparedStatements !== false, async () => {}),
      poolConnections: () => ({
        active: pool.totalCount - pool.idleCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
      }),
    };
  }
  let lock: DataDirLock | undefined;
  let pglite: PGlite;
  if (location.kind === 'pglite') {
    lock = lockDataDir(location.dataDir);
    try {
      pglite = await PGlite.create(path.join(location.dataDir, 'pglite'));
    } catch (error) {
      lock.release();
      throw error;
    }
  } else {
    pglite = await PGlite.create({ loadDataDir: location.template });
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return storeOf(db, pglite, undefined, true, async () => {
    await pglite.close();
    lock?.release();
  });
}

function storeOf(
  db: Db,
  pglite: PGlite | undefined,
  url: string | undefined,
  plansCached: boolean,
  after: () => Promise<void>,
): Store {
  return {
    db,
    pglite,
    url,
    plansCached,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
      await after();
    },
  };
}

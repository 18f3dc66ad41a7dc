// Everything that connects to a target database goes through here, behind the address guard: one
// small bounded pool per connection, opened on demand, closed after an idle time and when the app
// closes. A pool is keyed by the connection's id and version (its updated_at), so an edited
// connection (new host, password or TLS mode) gets a new pool and the old one is closed once its
// last user is done. Connection tests do not use the pools: a test must show whether a fresh
// connect works now.
//
// The dialects connect to the address the guard vetted, never to the name (see target-guard.ts), and
// a pool keeps that address for its lifetime: every physical connection it opens later goes there
// too. A name is resolved (and checked) again when a pool is opened: after an edit, after the idle
// time, and after a pool failed to reach its address, which retires it (a failover that moved the
// name is followed by the next use, not stuck on the old address while the pool stays busy).
import type { TargetConfig, TargetDialect, TargetHandle, TestResult } from '../../dialects/dialect.ts';
import { TargetError, type TargetErrorCause } from '../../dialects/errors.ts';
import type { DialectName } from '../../engine/schema/model.ts';
import type { TargetGuard } from './target-guard.ts';

/** Failures after which a pool no longer trusts its address: a statement timeout costs one reconnect. */
const ADDRESS_FAILURES = new Set<TargetErrorCause>(['unreachable', 'connection_lost', 'timeout']);

export interface PoolSettings {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  /** Connections a pool may hold at once. */
  poolSize: number;
  /** A pool unused for this long is closed. */
  idleMs: number;
}

/** Where and how to connect: a connection's own settings, with the password in the clear. */
export type Endpoint = Pick<
  TargetConfig,
  'host' | 'port' | 'database' | 'username' | 'password' | 'ssl_mode' | 'ca_cert'
>;

export interface PoolTarget {
  id: string;
  /** Changes whenever the connection is edited (its updated_at, in ms). */
  version: number;
  dialect: DialectName;
  endpoint: Endpoint;
}

interface Entry {
  id: string;
  version: number;
  handle: Promise<TargetHandle>;
  users: number;
  /** Replaced by a newer version, evicted or closing: closed when its last user is done. */
  retired: boolean;
  timer: NodeJS.Timeout | undefined;
}

export type ConnectionPools = ReturnType<typeof createConnectionPools>;

export function createConnectionPools(deps: {
  dialects: Record<DialectName, TargetDialect>;
  guard: TargetGuard;
  settings: PoolSettings;
}) {
  const { dialects, guard, settings } = deps;
  /** The current pool of each connection. */
  const current = new Map<string, Entry>();
  /** Every pool not yet closed, current or retired. */
  const open = new Set<Entry>();
  let closing = false;

  /** The dialect's config: connect to `address`, the first one the guard vetted for the host. */
  function configOf(endpoint: Endpoint, address: string, poolSize: number): TargetConfig {
    return {
      ...endpoint,
      host: address,
      // TLS still speaks to (and checks the certificate of) the name the user gave.
      ...(address !== endpoint.host && { server_name: endpoint.host }),
      // The CA matters for verify-full only; `require` does not check certificates at all.
      ca_cert: endpoint.ssl_mode === 'verify-full' ? endpoint.ca_cert : undefined,
      connect_timeout_ms: settings.connectTimeoutMs,
      statement_timeout_ms: settings.statementTimeoutMs,
      pool_size: poolSize,
    };
  }

  function close(entry: Entry): Promise<void> {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    open.delete(entry);
    if (current.get(entry.id) === entry) current.delete(entry.id);
    return entry.handle.then(
      (handle) => handle.close().catch(() => {}),
      () => {},
    );
  }

  function retire(entry: Entry): void {
    entry.retired = true;
    if (current.get(entry.id) === entry) current.delete(entry.id);
    if (entry.users === 0) void close(entry);
  }

  function acquire(target: PoolTarget): Entry {
    if (closing) throw new TargetError('other', 'The service is shutting down');
    let entry = current.get(target.id);
    // A request holding an older copy of the row uses the newer pool, never brings the old one back.
    if (entry && entry.version < target.version) {
      retire(entry);
      entry = undefined;
    }
    if (!entry) {
      const created: Entry = {
        id: target.id,
        version: target.version,
        users: 0,
        retired: false,
        timer: undefined,
        handle: (async () => {
          const [address] = await guard.assertAllowed(target.endpoint.host);
          return dialects[target.dialect].open(configOf(target.endpoint, address, settings.poolSize));
        })(),
      };
      // A pool that failed to open is forgotten at once, so that the next use tries again.
      created.handle.catch(() => {
        if (!created.retired) retire(created);
      });
      current.set(target.id, created);
      open.add(created);
      entry = created;
    }
    clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.users += 1;
    return entry;
  }

  function release(entry: Entry): void {
    entry.users -= 1;
    if (entry.users > 0) return;
    if (entry.retired) {
      void close(entry);
      return;
    }
    entry.timer = setTimeout(() => void close(entry), settings.idleMs);
    // An idle pool never keeps the process alive.
    entry.timer.unref();
  }

  return {
    /** Runs `work` with the connection's pool, opening it first if needed. Throws TargetError. */
    async use<T>(target: PoolTarget, work: (handle: TargetHandle) => Promise<T>): Promise<T> {
      const entry = acquire(target);
      try {
        return await work(await entry.handle);
      } catch (error) {
        // The pool's address may be gone (a failover moved the name): the next use resolves again.
        if (error instanceof TargetError && ADDRESS_FAILURES.has(error.cause) && !entry.retired)
          retire(entry);
        throw error;
      } finally {
        release(entry);
      }
    },

    /** Connects once, outside the pools, and reports; never throws. The guard's refusal is a result too. */
    async test(dialect: DialectName, endpoint: Endpoint): Promise<TestResult> {
      const started = performance.now();
      let address: string;
      try {
        [address] = await guard.assertAllowed(endpoint.host);
      } catch (error) {
        if (!(error instanceof TargetError)) throw error;
        return {
          ok: false,
          latency_ms: Math.round(performance.now() - started),
          server_version: null,
          error: error.toJSON(),
        };
      }
      return dialects[dialect].test(configOf(endpoint, address, 1));
    },

    /** Closes the connection's pool (once in-flight work ends): after a delete or an edit. */
    evict(id: string): void {
      const entry = current.get(id);
      if (entry) retire(entry);
    },

    /** How many pools are open (for tests and diagnostics). */
    size: () => open.size,

    /** Closes every pool, in use or not; later uses fail. For app shutdown. */
    async closeAll(): Promise<void> {
      closing = true;
      await Promise.all([...open].map(close));
    },
  };
}

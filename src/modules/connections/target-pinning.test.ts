// The dialects connect to the address the guard vetted, never to the name, so a DNS answer that
// changes after the check (rebinding) cannot send them elsewhere. The names used here (*.rebind.test)
// resolve only through the fake resolver given to the guard: a connect that works proves the driver
// did no lookup of its own. On both engines, against the real test servers and TLS look-alikes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/support/app.ts';
import { connectionBody, watchedDialects } from '../../../test/support/connections.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  testPgUrl,
} from '../../../test/support/databases.ts';
import { createTestMysqlDatabase, mysqlAvailable, testMysqlUrl } from '../../../test/support/mysql.ts';
import { targetConfig, tcpForwarder } from '../../../test/support/targets.ts';
import { TLS_PEER_CERT, TLS_PEER_NAME, tlsPeer } from '../../../test/support/tls-peers.ts';
import type { SslMode } from '../../dialects/dialect.ts';
import { TargetError } from '../../dialects/errors.ts';
import type { DialectName } from '../../engine/schema/model.ts';
import { createConnectionPools, type Endpoint, type PoolTarget } from './connection-pools.ts';
import { createTargetGuard, type Resolver, systemResolver } from './target-guard.ts';

const NAME = TLS_PEER_NAME;

/** A resolver answering from a table the test edits; unknown names fail like NXDOMAIN. */
function fakeDns(entries: Record<string, string[]> = {}) {
  const table = new Map(Object.entries(entries));
  const asked: string[] = [];
  const resolve: Resolver = async (host) => {
    asked.push(host);
    const addresses = table.get(host);
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses;
  };
  return { table, asked, resolve };
}

/** Pools over the watched real dialects, behind a guard that resolves through `dns`. */
function poolsWith(dns: ReturnType<typeof fakeDns>) {
  const watched = watchedDialects();
  const pools = createConnectionPools({
    dialects: watched.dialects,
    guard: createTargetGuard({ policy: { blockPrivate: false }, timeoutMs: 1_000, resolve: dns.resolve }),
    settings: { connectTimeoutMs: 3_000, statementTimeoutMs: 10_000, poolSize: 2, idleMs: 60_000 },
  });
  return { watched, pools };
}

function endpointOf(url: string, overrides: Partial<Endpoint> = {}): Endpoint {
  const { host, port, database, username, password, ssl_mode } = targetConfig(url);
  return { host, port, database, username, password, ssl_mode, ...overrides };
}

const engines = [
  {
    dialect: 'postgresql' as DialectName,
    up: await pgAvailable(),
    server: 'PostgreSQL' as const,
    url: testPgUrl,
    createDatabase: createTestPgDatabase,
    backendIdSql: 'select pg_backend_pid() as id',
  },
  {
    dialect: 'mysql' as DialectName,
    up: await mysqlAvailable(),
    server: 'MySQL' as const,
    url: testMysqlUrl,
    createDatabase: createTestMysqlDatabase,
    backendIdSql: 'select connection_id() as id',
  },
];

it('uses names that no real resolver knows', async () => {
  await expect(systemResolver(NAME)).rejects.toMatchObject({
    code: expect.stringMatching(/ENOTFOUND|EAI_AGAIN/),
  });
});

for (const engine of engines) {
  if (!engine.up)
    reportSkipped(`address pinning on ${engine.server} (target-pinning.test.ts)`, engine.server, engine.url);

  describe.skipIf(!engine.up)(`${engine.dialect}: connects to the vetted address`, () => {
    let url: string;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const database = (await engine.createDatabase())!;
      url = database.url;
      drop = () => database.drop();
    });
    afterAll(async () => {
      await drop?.();
    });
    const target = (endpoint: Endpoint): PoolTarget => ({
      id: 'c1',
      version: 1,
      dialect: engine.dialect,
      endpoint,
    });

    it('tests and opens a connection whose name only the guard resolves, at the address it vetted', async () => {
      const dns = fakeDns({ [NAME]: ['127.0.0.1'] });
      const watched = watchedDialects();
      const t = await createTestApp({ resolveHost: dns.resolve, dialects: watched.dialects });
      try {
        const { owner } = await t.createOrg();
        const projectId = (await owner.post('/api/v1/projects', { name: 'Pinned' })).body.id as string;
        const created = await owner.post(
          '/api/v1/connections',
          connectionBody(projectId, url, { host: NAME }),
        );
        expect(created.status).toBe(201);
        expect(created.body.host).toBe(NAME);

        const tested = await owner.post(`/api/v1/connections/${created.body.id}/test`);
        expect(tested.body).toMatchObject({ ok: true, server_version: expect.any(String), error: null });
        expect((await owner.get(`/api/v1/connections/${created.body.id}/schema`)).status).toBe(200);

        expect(watched.tested).toEqual(['127.0.0.1']);
        expect(watched.opened).toEqual(['127.0.0.1']);
        expect(watched.configs.map((config) => config.server_name)).toEqual([NAME, NAME]);
        // Checked on create, before the test and before the pool opened.
        expect(dns.asked).toEqual([NAME, NAME, NAME]);
      } finally {
        await t.close();
      }
    });

    it('opens every physical connection of a pool at the address vetted when the pool opened', async () => {
      const dns = fakeDns({ [NAME]: ['127.0.0.1'] });
      const { watched, pools } = poolsWith(dns);
      const pinned = target(endpointOf(url, { host: NAME }));
      try {
        await pools.use(pinned, async (handle) => handle.serverVersion);
        // The name now answers the metadata address: the pool's later connects must not follow it.
        dns.table.set(NAME, ['169.254.169.254']);
        let arrived = 0;
        let allIn: () => void = () => {};
        const together = new Promise<void>((resolve) => (allIn = resolve));
        const backendId = () =>
          pools.use(pinned, (handle) =>
            handle.transaction(
              async (tx) => {
                if (++arrived === 2) allIn();
                await together; // both hold a connection at once: the pool opens a second one
                return String((await tx.query(engine.backendIdSql)).rows[0]!.id);
              },
              { commit: false },
            ),
          );
        const ids = await Promise.all([backendId(), backendId()]);
        expect(new Set(ids).size).toBe(2);
        expect(dns.asked).toEqual([NAME]);

        // A new pool checks the name again, and is refused.
        pools.evict('c1');
        const refused = await pools.use(pinned, async () => 'never').catch((thrown: unknown) => thrown);
        expect(refused).toMatchObject({ cause: 'permission_denied', code: 'ADDRESS_REFUSED' });
        expect(watched.opened).toEqual(['127.0.0.1']);
      } finally {
        await pools.closeAll();
      }
    });

    it('refuses, before any connect, a name that answered a public address when saved and the metadata address now', async () => {
      const moved = 'moved.rebind.test';
      const dns = fakeDns({ [moved]: ['203.0.113.10'] });
      const watched = watchedDialects();
      const t = await createTestApp({ resolveHost: dns.resolve, dialects: watched.dialects });
      try {
        const { owner } = await t.createOrg();
        const projectId = (await owner.post('/api/v1/projects', { name: 'Rebound' })).body.id as string;
        const created = await owner.post(
          '/api/v1/connections',
          connectionBody(projectId, url, { host: moved }),
        );
        expect(created.status).toBe(201);
        dns.table.set(moved, ['169.254.169.254']);

        const tested = await owner.post(`/api/v1/connections/${created.body.id}/test`);
        expect(tested.body).toMatchObject({
          ok: false,
          error: {
            cause: 'permission_denied',
            message: expect.stringContaining(`${moved} resolves to 169.254.169.254`),
          },
        });
        const schema = await owner.get(`/api/v1/connections/${created.body.id}/schema`);
        expect(schema.status).toBe(502);
        expect(schema.body.detail).toContain('failed: Address refused: ');
        expect(schema.headers['x-target-error-cause']).toBe('permission_denied');
        expect(dns.asked).toEqual([moved, moved, moved]);
        expect(watched.tested).toEqual([]);
        expect(watched.opened).toEqual([]);
      } finally {
        await t.close();
      }
    });

    it('replaces a pool whose address stopped answering, at the address the name answers now', async () => {
      const { host, port } = targetConfig(url);
      const primary = await tcpForwarder({ host: '127.0.0.2' }, { host, port });
      const standby = await tcpForwarder({ host: '127.0.0.3', port: primary.port }, { host, port });
      const failover = 'failover.rebind.test';
      const dns = fakeDns({ [failover]: ['127.0.0.2'] });
      const { watched, pools } = poolsWith(dns);
      const pooled = target(endpointOf(url, { host: failover, port: primary.port }));
      try {
        await pools.use(pooled, async (handle) => handle.serverVersion);
        await primary.close();
        dns.table.set(failover, ['127.0.0.3']);
        await new Promise((resolve) => setTimeout(resolve, 50));

        // The use that finds the old address gone fails; it retires the pool.
        const lost = await pools
          .use(pooled, (handle) => handle.introspect())
          .catch((thrown: unknown) => thrown);
        expect(lost).toBeInstanceOf(TargetError);
        expect(['unreachable', 'connection_lost']).toContain((lost as TargetError).cause);
        await pools.use(pooled, (handle) => handle.introspect());
        expect(watched.opened).toEqual(['127.0.0.2', '127.0.0.3']);
      } finally {
        await pools.closeAll();
        await standby.close();
      }
    });
  });

  describe(`${engine.dialect}: TLS speaks to the name, not to the address`, () => {
    const tlsTest = async (host: string, sslMode: SslMode) => {
      const peer = await tlsPeer(engine.dialect);
      const dns = fakeDns({ [NAME]: ['127.0.0.1'], 'other.rebind.test': ['127.0.0.1'] });
      const { watched, pools } = poolsWith(dns);
      try {
        const endpoint: Endpoint = {
          host,
          port: peer.port,
          database: 'app',
          username: 'app',
          password: 'secret',
          ssl_mode: sslMode,
          ca_cert: TLS_PEER_CERT,
        };
        const result = await pools.test(engine.dialect, endpoint);
        return { result, peer, config: watched.configs[0]! };
      } finally {
        await pools.closeAll();
        await peer.close();
      }
    };

    it('verify-full: sends the name as SNI and accepts a certificate for the name', async () => {
      const { result, peer, config } = await tlsTest(NAME, 'verify-full');
      expect(config).toMatchObject({ host: '127.0.0.1', server_name: NAME });
      expect(peer.serverNames).toEqual([NAME]);
      expect(peer.accepted).toBe(1);
      // The peer's own refusal of the login: TLS got through.
      expect(result.error?.cause).toBe('authentication_failed');
    });

    it('verify-full: refuses a certificate that does not name the host, and says which host', async () => {
      const { result, peer } = await tlsTest('other.rebind.test', 'verify-full');
      expect(peer.serverNames).toEqual(['other.rebind.test']);
      expect(peer.accepted).toBe(0);
      expect(result.error?.cause).toBe('tls');
      expect(result.error?.message).toContain('other.rebind.test');
      expect(result.error?.message).not.toContain('127.0.0.1');
    });

    it('verify-full with an IP address: as before pinning, no SNI and the same certificate check', async () => {
      const { result, peer, config } = await tlsTest('127.0.0.1', 'verify-full');
      expect(config.server_name).toBeUndefined();
      expect(peer.serverNames).toEqual([]);
      if (engine.dialect === 'postgresql') {
        // The certificate must name the address.
        expect(peer.accepted).toBe(0);
        expect(result.error).toMatchObject({ cause: 'tls', message: expect.stringContaining('127.0.0.1') });
      } else {
        // mysql2 cannot check an address against the certificate (mysql.dialect.ts): the chain only.
        expect(peer.accepted).toBe(1);
        expect(result.error?.cause).toBe('authentication_failed');
      }
    });

    it('require: sends SNI for a name, none for an IP address', async () => {
      const named = await tlsTest(NAME, 'require');
      expect(named.peer.serverNames).toEqual([NAME]);
      expect(named.result.error?.cause).toBe('authentication_failed');
      const literal = await tlsTest('127.0.0.1', 'require');
      expect(literal.config.server_name).toBeUndefined();
      expect(literal.peer.serverNames).toEqual([]);
      expect(literal.peer.accepted).toBe(1);
      expect(literal.result.error?.cause).toBe('authentication_failed');
    });
  });
}

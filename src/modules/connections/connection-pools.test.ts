// The per-connection pools on the real PostgreSQL test server: opened once and shared, rebuilt when
// the connection changes, closed when idle, on eviction and on shutdown, and never opened for an
// address the guard refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/support/app.ts';
import { connectionBody, watchedDialects } from '../../../test/support/connections.ts';
import {
  createTestPgDatabase,
  pgAvailable,
  reportSkipped,
  type TestPgDatabase,
  testPgUrl,
} from '../../../test/support/databases.ts';
import { freePort, targetConfig } from '../../../test/support/targets.ts';
import { TargetError } from '../../dialects/errors.ts';
import { createConnectionPools, type PoolTarget } from './connection-pools.ts';
import { createTargetGuard } from './target-guard.ts';

const pgUp = await pgAvailable();
if (!pgUp) reportSkipped('connection pools (connection-pools.test.ts)', 'PostgreSQL', testPgUrl);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!pgUp)('connection pools', () => {
  let database: TestPgDatabase;
  beforeAll(async () => {
    database = (await createTestPgDatabase())!;
  });
  afterAll(async () => {
    await database?.drop();
  });

  function setUp(idleMs = 60_000) {
    const watched = watchedDialects();
    const pools = createConnectionPools({
      dialects: watched.dialects,
      guard: createTargetGuard({ policy: { blockPrivate: false }, timeoutMs: 2_000 }),
      settings: { connectTimeoutMs: 3_000, statementTimeoutMs: 10_000, poolSize: 2, idleMs },
    });
    const { host, port, database: name, username, password, ssl_mode } = targetConfig(database.url);
    const target = (version = 1, id = 'c1'): PoolTarget => ({
      id,
      version,
      dialect: 'postgresql',
      endpoint: { host, port, database: name, username, password, ssl_mode },
    });
    return { watched, pools, target };
  }
  const version = (handle: { serverVersion: string }) => handle.serverVersion;

  it('opens one pool per connection and shares it, also between concurrent users', async () => {
    const { watched, pools, target } = setUp();
    try {
      const versions = await Promise.all([1, 2, 3].map(() => pools.use(target(), async (h) => version(h))));
      expect(new Set(versions).size).toBe(1);
      await pools.use(target(), (h) => h.introspect());
      expect(watched.opened).toEqual(['127.0.0.1']);
      await pools.use(target(1, 'c2'), async (h) => version(h));
      expect(watched.opened).toHaveLength(2);
      expect(pools.size()).toBe(2);
    } finally {
      await pools.closeAll();
    }
    expect(watched.closed).toBe(2);
    expect(pools.size()).toBe(0);
  });

  it('rebuilds the pool for a newer version and closes the old one once its user is done', async () => {
    const { watched, pools, target } = setUp();
    try {
      let releaseOld: () => void = () => {};
      const held = pools.use(target(1), () => new Promise<void>((resolve) => (releaseOld = resolve)));
      await sleep(50);
      await pools.use(target(2), async (h) => version(h));
      expect(watched.opened).toHaveLength(2);
      expect(watched.closed).toBe(0); // the old pool is still in use
      releaseOld();
      await held;
      await sleep(20);
      expect(watched.closed).toBe(1);
      // A request still holding the older row uses the newer pool, never reopens the old settings.
      await pools.use(target(1), async (h) => version(h));
      expect(watched.opened).toHaveLength(2);
    } finally {
      await pools.closeAll();
    }
  });

  it('closes a pool after the idle time, and on eviction', async () => {
    const { watched, pools, target } = setUp(150);
    try {
      await pools.use(target(), async (h) => version(h));
      expect(pools.size()).toBe(1);
      await sleep(400);
      expect(pools.size()).toBe(0);
      expect(watched.closed).toBe(1);
      await pools.use(target(), async (h) => version(h));
      expect(watched.opened).toHaveLength(2);
      pools.evict('c1');
      await sleep(20);
      expect(watched.closed).toBe(2);
      expect(pools.size()).toBe(0);
    } finally {
      await pools.closeAll();
    }
  });

  it('forgets a pool that failed to open, so that the next use tries again', async () => {
    const { watched, pools, target } = setUp();
    const down = target();
    down.endpoint.port = await freePort();
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await pools.use(down, async () => 'never').catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(TargetError);
        expect((error as TargetError).cause).toBe('unreachable');
      }
      expect(watched.opened).toHaveLength(2);
      expect(pools.size()).toBe(0);
    } finally {
      await pools.closeAll();
    }
  });

  it('never opens a pool for a refused address, and refuses work after closeAll', async () => {
    const { watched, pools, target } = setUp();
    const refused = target();
    refused.endpoint.host = '169.254.169.254';
    const error = await pools.use(refused, async () => 'never').catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ cause: 'permission_denied' });
    expect(watched.opened).toEqual([]);

    await pools.use(target(), async (h) => version(h));
    await pools.closeAll();
    expect(watched.closed).toBe(1);
    await expect(pools.use(target(), async (h) => version(h))).rejects.toBeInstanceOf(TargetError);
  });

  it("closes the app's pools when the app closes", async () => {
    const watched = watchedDialects();
    const t = await createTestApp({ dialects: watched.dialects });
    try {
      const { owner } = await t.createOrg();
      const project = (await owner.post('/api/v1/projects', { name: 'Pools' })).body.id;
      const id = (await owner.post('/api/v1/connections', connectionBody(project, database.url))).body.id;
      expect((await owner.get(`/api/v1/connections/${id}/schema`)).status).toBe(200);
      expect((await owner.get(`/api/v1/connections/${id}/schema`)).status).toBe(200);
      expect(watched.opened).toEqual(['127.0.0.1']);
      // An edit replaces the pool: the next use opens a new one and the old one is closed.
      expect((await owner.patch(`/api/v1/connections/${id}`, { name: 'Renamed' })).status).toBe(200);
      expect((await owner.get(`/api/v1/connections/${id}/schema`)).status).toBe(200);
      expect(watched.opened).toHaveLength(2);
      expect(watched.closed).toBe(1);
    } finally {
      await t.close();
    }
    expect(watched.closed).toBe(2);
  });
});

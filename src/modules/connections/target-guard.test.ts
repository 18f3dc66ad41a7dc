// The address guard: the decision on addresses and names, and through the API that a refused target
// is refused before anything connects. Host names resolve through a fake resolver, and the dialects
// are wrapped to record (and forbid) any connect to a non-loopback address: these tests never open
// a connection anywhere but 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createTestApp, type TestApp } from '../../../test/support/app.ts';
import { connectionBody, type WatchedDialects, watchedDialects } from '../../../test/support/connections.ts';
import { freePort } from '../../../test/support/targets.ts';
import { TargetError } from '../../dialects/errors.ts';
import { addressRefusal, createTargetGuard, type Resolver } from './target-guard.ts';

const BASE = '/api/v1/connections';

/** A resolver answering from a table the test edits; unknown names fail like NXDOMAIN. */
function fakeDns() {
  const table = new Map<string, string[]>();
  const asked: string[] = [];
  const resolve: Resolver = async (host) => {
    asked.push(host);
    const addresses = table.get(host);
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses;
  };
  return { table, asked, resolve };
}

describe('addressRefusal', () => {
  it('refuses metadata and link-local always, private and loopback only when asked', () => {
    const open = { blockPrivate: false };
    const closed = { blockPrivate: true };
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '169.254.1.1', 'fe80::1']) {
      expect(addressRefusal(address, open)?.rule).toMatch(/always refused/);
      expect(addressRefusal(address, closed)?.rule).toMatch(/always refused/);
    }
    for (const address of ['10.1.2.3', '172.20.0.5', '192.168.0.1', 'fd00::5', '127.0.0.1', '::1']) {
      expect(addressRefusal(address, open)).toBeNull();
      expect(addressRefusal(address, closed)?.rule).toMatch(/BLOCK_PRIVATE_TARGETS=true/);
    }
    for (const address of ['93.184.216.34', '2001:4860:4860::8888']) {
      expect(addressRefusal(address, open)).toBeNull();
      expect(addressRefusal(address, closed)).toBeNull();
    }
  });
});

describe('addressRefusal for webhooks (link-local follows the private switch)', () => {
  it('refuses link-local with private addresses and metadata always', () => {
    const policy = { linkLocalFollowsPrivate: true, switchName: 'unless WEBHOOK_ALLOW_PRIVATE=true' };
    const open = { ...policy, blockPrivate: false };
    const closed = { ...policy, blockPrivate: true };
    for (const address of ['169.254.1.1', 'fe80::1', '10.1.2.3', '127.0.0.1']) {
      expect(addressRefusal(address, open)).toBeNull();
      expect(addressRefusal(address, closed)?.rule).toMatch(
        /link-local addresses \(unless WEBHOOK_ALLOW_PRIVATE=true\)/,
      );
    }
    for (const address of ['169.254.169.254', 'fd00:ec2::254']) {
      expect(addressRefusal(address, open)?.rule).toMatch(/always refused/);
    }
  });
});

describe('createTargetGuard', () => {
  it('decides on every address a name resolves to', async () => {
    const dns = fakeDns();
    dns.table.set('db.example.test', ['127.0.0.1']);
    dns.table.set('mixed.example.test', ['93.184.216.34', '169.254.169.254']);
    dns.table.set('internal.example.test', ['10.0.0.7']);
    const guard = createTargetGuard({
      policy: { blockPrivate: false },
      timeoutMs: 1_000,
      resolve: dns.resolve,
    });
    expect(await guard.verdict('db.example.test')).toEqual({ allowed: true, addresses: ['127.0.0.1'] });
    expect(await guard.verdict('internal.example.test')).toEqual({ allowed: true, addresses: ['10.0.0.7'] });
    const mixed = await guard.verdict('mixed.example.test');
    expect(mixed.allowed).toBe(false);
    expect(mixed).toMatchObject({
      reason: expect.stringContaining(
        'mixed.example.test resolves to 169.254.169.254, a cloud metadata address',
      ),
    });

    const strict = createTargetGuard({
      policy: { blockPrivate: true },
      timeoutMs: 1_000,
      resolve: dns.resolve,
    });
    expect((await strict.verdict('internal.example.test')).allowed).toBe(false);
    expect((await strict.verdict('db.example.test')).allowed).toBe(false);
  });

  it('refuses metadata host names without asking DNS, and IP literals without resolving', async () => {
    const dns = fakeDns();
    const guard = createTargetGuard({
      policy: { blockPrivate: false },
      timeoutMs: 1_000,
      resolve: dns.resolve,
    });
    for (const host of ['metadata.google.internal', 'METADATA.google.internal.', 'instance-data']) {
      expect((await guard.verdict(host)).allowed).toBe(false);
    }
    expect(await guard.verdict('169.254.169.254')).toMatchObject({ allowed: false });
    expect(await guard.verdict('10.9.8.7')).toEqual({ allowed: true, addresses: ['10.9.8.7'] });
    expect(dns.asked).toEqual([]);
  });

  it('reports a name that does not resolve, or not in time, as a classified error', async () => {
    const dns = fakeDns();
    const guard = createTargetGuard({
      policy: { blockPrivate: false },
      timeoutMs: 1_000,
      resolve: dns.resolve,
    });
    const missing = await guard.verdict('nowhere.example.test');
    expect(missing.allowed).toBe('unresolved');
    expect(missing).toMatchObject({ error: { cause: 'unreachable', code: 'ENOTFOUND' } });

    const slow = createTargetGuard({
      policy: { blockPrivate: false },
      timeoutMs: 50,
      resolve: () => new Promise(() => {}),
    });
    expect(await slow.verdict('slow.example.test')).toMatchObject({
      allowed: 'unresolved',
      error: { cause: 'timeout' },
    });
  });

  it('returns the vetted addresses from assertAllowed, or throws a permission_denied TargetError', async () => {
    const dns = fakeDns();
    dns.table.set('db.example.test', ['203.0.113.7', '2001:db8::7']);
    const guard = createTargetGuard({
      policy: { blockPrivate: false },
      timeoutMs: 1_000,
      resolve: dns.resolve,
    });
    const error = await guard.assertAllowed('169.254.169.254').then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(TargetError);
    expect(error).toMatchObject({ cause: 'permission_denied', code: 'ADDRESS_REFUSED' });
    // What to connect to: an IP literal is its own address; a name, every address, in the resolver's order.
    expect(await guard.assertAllowed('127.0.0.1')).toEqual(['127.0.0.1']);
    expect(await guard.assertAllowed('db.example.test')).toEqual(['203.0.113.7', '2001:db8::7']);
  });
});

describe('the guard through the API', () => {
  /** An app with the fake resolver and watched dialects, an owner and a project. */
  async function setUp(blockPrivate: boolean) {
    const dns = fakeDns();
    const watched = watchedDialects();
    const t = await createTestApp({
      targets: { blockPrivate },
      resolveHost: dns.resolve,
      dialects: watched.dialects,
    });
    const { owner } = await t.createOrg();
    const projectId = (await owner.post('/api/v1/projects', { name: 'Guarded' })).body.id as string;
    const create = (host: string, extra: Record<string, unknown> = {}) =>
      owner.post(BASE, connectionBody(projectId, `postgres://app@127.0.0.1:5432/app`, { host, ...extra }));
    return { t, owner, dns, watched, projectId, create };
  }

  /** The refused answer of a create or an update: 422 on body.host, saying why. */
  function expectRefusedHost(response: { status: number; body: { detail: unknown } }, why: RegExp) {
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['body', 'host'], msg: expect.stringMatching(why), type: 'value_error' },
    ]);
  }

  describe('by default', () => {
    let t: TestApp;
    let owner: Client;
    let dns: ReturnType<typeof fakeDns>;
    let watched: WatchedDialects;
    let create: (host: string, extra?: Record<string, unknown>) => ReturnType<Client['post']>;
    beforeAll(async () => {
      ({ t, owner, dns, watched, create } = await setUp(false));
    });
    afterAll(async () => {
      await t?.close();
    });

    it('refuses metadata and link-local hosts on create and on update, and stores nothing', async () => {
      dns.table.set('sneaky.example.test', ['169.254.169.254']);
      for (const host of [
        '169.254.169.254',
        'fd00:ec2::254',
        '169.254.10.20',
        'fe80::1',
        'metadata.google.internal',
      ]) {
        expectRefusedHost(await create(host), /^Address refused: .*always refused$/);
      }
      expectRefusedHost(
        await create('sneaky.example.test'),
        /sneaky\.example\.test resolves to 169\.254\.169\.254/,
      );

      const created = await create('10.1.2.3');
      expect(created.status).toBe(201);
      const moved = await owner.patch(`${BASE}/${created.body.id}`, { host: '169.254.169.254' });
      expectRefusedHost(moved, /link-local and cloud metadata/);
      expect((await owner.get(`${BASE}/${created.body.id}`)).body.host).toBe('10.1.2.3');
      expect((await owner.get(BASE)).body.total).toBe(1);
      expect(watched.opened).toEqual([]);
      expect(watched.tested).toEqual([]);
    });

    it('accepts a name that does not resolve yet: it is checked again before every connect', async () => {
      const created = await create('later.example.test');
      expect(created.status).toBe(201);
      const tested = await owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.body).toMatchObject({ ok: false, error: { cause: 'unreachable' } });
      expect(watched.tested).toEqual([]);
    });

    it('refuses a name that moved to a metadata address after creation, before connecting', async () => {
      dns.table.set('moving.example.test', ['127.0.0.1']);
      const created = await create('moving.example.test');
      expect(created.status).toBe(201);
      dns.table.set('moving.example.test', ['169.254.169.254']);

      const tested = await owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body).toEqual({
        ok: false,
        latency_ms: expect.any(Number),
        server_version: null,
        error: {
          cause: 'permission_denied',
          message: expect.stringContaining('moving.example.test resolves to 169.254.169.254'),
        },
      });
      const schema = await owner.get(`${BASE}/${created.body.id}/schema`);
      expect(schema.status).toBe(502);
      expect(schema.body.detail).toContain('failed: Address refused: ');
      expect(schema.headers['x-target-error-cause']).toBe('permission_denied');
      expect((await owner.post(`${BASE}/${created.body.id}/snapshots`)).status).toBe(502);
      expect(watched.opened).toEqual([]);
      expect(watched.tested).toEqual([]);
    });

    it('allows loopback: the connect is attempted', async () => {
      const created = await create('127.0.0.1', { port: await freePort() });
      const tested = await owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.body.error?.cause).not.toBe('permission_denied');
      expect(watched.tested).toEqual(['127.0.0.1']);
    });
  });

  describe('with BLOCK_PRIVATE_TARGETS=true', () => {
    let t: TestApp;
    let owner: Client;
    let dns: ReturnType<typeof fakeDns>;
    let watched: WatchedDialects;
    let create: (host: string, extra?: Record<string, unknown>) => ReturnType<Client['post']>;
    beforeAll(async () => {
      ({ t, owner, dns, watched, create } = await setUp(true));
    });
    afterAll(async () => {
      await t?.close();
    });

    it('refuses private and loopback hosts, by address or by name', async () => {
      dns.table.set('localhost', ['127.0.0.1', '::1']);
      dns.table.set('db.internal.test', ['192.168.1.10']);
      for (const host of [
        '10.1.2.3',
        '172.16.5.4',
        '192.168.0.10',
        'fd00::1',
        '127.0.0.1',
        '::1',
        'localhost',
        'db.internal.test',
      ]) {
        expectRefusedHost(await create(host), /BLOCK_PRIVATE_TARGETS=true/);
      }
      // Metadata stays refused for its own reason.
      expectRefusedHost(await create('169.254.169.254'), /always refused/);
      expect((await owner.get(BASE)).body.total).toBe(0);
    });

    it('refuses a public name that moved to a private address, before connecting', async () => {
      dns.table.set('db.example.test', ['203.0.113.10']);
      const created = await create('db.example.test');
      expect(created.status).toBe(201);
      dns.table.set('db.example.test', ['10.0.0.5']);
      const tested = await owner.post(`${BASE}/${created.body.id}/test`);
      expect(tested.body).toMatchObject({
        ok: false,
        error: {
          cause: 'permission_denied',
          message: expect.stringContaining('10.0.0.5, a private address'),
        },
      });
      const schema = await owner.get(`${BASE}/${created.body.id}/schema`);
      expect(schema.status).toBe(502);
      const moved = await owner.patch(`${BASE}/${created.body.id}`, { host: '10.0.0.6' });
      expectRefusedHost(moved, /10\.0\.0\.6 is a private address/);
      expect(watched.opened).toEqual([]);
      expect(watched.tested).toEqual([]);
    });
  });
});

// A stored password only ever goes to the server it was given for. The attack: a project admin
// points a connection at a listener of their own (another port, another host, or no TLS where a
// listener on the path could not read it) and presses Test. Each case runs against the real
// PostgreSQL server of the tests and an impostor on the loopback that asks for a cleartext password
// and records what it gets: without a password in the same body the edit is refused (422) and the
// connection still reaches the real server; with a new one the edit goes through and the impostor
// only ever learns the new password.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Response } from '../../../test/support/app.ts';
import { connectionBody, type PasswordCatcher, passwordCatcher } from '../../../test/support/connections.ts';
import { connectionsSuite, itNeverShowsAPassword } from '../../../test/support/connections-suite.ts';
import { pgAvailable, reportSkipped, testPgUrl } from '../../../test/support/databases.ts';
import { targetConfig, tcpForwarder } from '../../../test/support/targets.ts';
import { TLS_PEER_CERT } from '../../../test/support/tls-peers.ts';

const BASE = '/api/v1/connections';

const pgUp = await pgAvailable();
if (!pgUp)
  reportSkipped('stored-password tests (connections.stored-password.test.ts)', 'PostgreSQL', testPgUrl);

describe('connections: a stored password stays with its server', () => {
  const suite = connectionsSuite();
  const { password } = suite;
  const closers: (() => Promise<void>)[] = [];
  let catcher: PasswordCatcher;

  beforeAll(async () => {
    catcher = await passwordCatcher();
    closers.push(catcher.close);
  });
  afterAll(async () => {
    for (const close of closers) await close();
  });

  const create = async (overrides: Record<string, unknown>) => {
    const created = await suite.owner.post(BASE, connectionBody(suite.projectId, testPgUrl, overrides));
    expect(created.status).toBe(201);
    return created.body as { id: string };
  };
  const test = async (id: string) => {
    const response = await suite.owner.post(`${BASE}/${id}/test`);
    expect(response.status).toBe(200);
    return response.body as { ok: boolean; server_version: string | null; error: { cause: string } | null };
  };
  const expectPasswordRequired = (response: Response, field: RegExp) => {
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      { loc: ['body', 'password'], msg: expect.stringMatching(field), type: 'missing' },
    ]);
    expect(response.body.detail[0].msg).toContain('needs the password in the same request');
  };

  it.skipIf(!pgUp)(
    'refuses a new port without the password, and never sends the stored one there',
    async () => {
      const stored = password();
      const { id } = await create({ password: stored });
      expect(await test(id)).toMatchObject({ ok: true, error: null });
      const before = (await suite.owner.get(`${BASE}/${id}`)).body;

      const moved = await suite.owner.patch(`${BASE}/${id}`, { port: catcher.port });
      expectPasswordRequired(moved, /changing port/);
      // Nothing changed: the connection still reaches the real server, the impostor heard nothing.
      expect((await suite.owner.get(`${BASE}/${id}`)).body).toEqual(before);
      const still = await test(id);
      expect(still).toMatchObject({ ok: true, error: null });
      expect(still.server_version).toEqual(expect.any(String));
      expect(catcher.startups).toBe(0);

      // The port it already has is no change; a rename needs no password either.
      const port = targetConfig(testPgUrl).port;
      expect((await suite.owner.patch(`${BASE}/${id}`, { port, name: `same-port-${id}` })).status).toBe(200);

      const fresh = password();
      const accepted = await suite.owner.patch(`${BASE}/${id}`, { port: catcher.port, password: fresh });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({ port: catcher.port, has_password: true });
      expect(await test(id)).toMatchObject({ ok: false, error: { cause: 'authentication_failed' } });
      expect(catcher.passwords).toEqual([fresh]);
      expect(catcher.passwords).not.toContain(stored);
    },
  );

  it.skipIf(!pgUp)(
    'refuses a new host without the password, and never sends the stored one there',
    async () => {
      // The real server behind 127.0.0.1:<port>, the impostor on 127.0.0.2 at the same port: only the
      // host differs.
      const real = targetConfig(testPgUrl);
      const forwarder = await tcpForwarder({ host: '127.0.0.1' }, { host: real.host, port: real.port });
      closers.push(forwarder.close);
      const impostor = await passwordCatcher({ host: '127.0.0.2', port: forwarder.port });
      closers.push(impostor.close);
      const stored = password();
      const { id } = await create({ host: '127.0.0.1', port: forwarder.port, password: stored });
      expect(await test(id)).toMatchObject({ ok: true });

      expectPasswordRequired(
        await suite.owner.patch(`${BASE}/${id}`, { host: '127.0.0.2' }),
        /changing host/,
      );
      expect((await suite.owner.get(`${BASE}/${id}`)).body.host).toBe('127.0.0.1');
      expect(await test(id)).toMatchObject({ ok: true });
      expect(impostor.startups).toBe(0);

      const fresh = password();
      const accepted = await suite.owner.patch(`${BASE}/${id}`, { host: '127.0.0.2', password: fresh });
      expect(accepted.status).toBe(200);
      expect(await test(id)).toMatchObject({ ok: false, error: { cause: 'authentication_failed' } });
      expect(impostor.passwords).toEqual([fresh]);
    },
  );

  it.skipIf(!pgUp)(
    'refuses a lower ssl_mode without the password, and never sends the stored one in clear',
    async () => {
      // A listener that cannot speak TLS sits where the connection points: under `require` the client
      // stops at its refusal of TLS; under `disable` it would get the password in clear.
      const listener = await passwordCatcher();
      closers.push(listener.close);
      const stored = password();
      const { id } = await create({ port: listener.port, ssl_mode: 'require', password: stored });
      expect(await test(id)).toMatchObject({ ok: false, error: { cause: 'tls' } });
      expect(listener).toMatchObject({ sslRequests: 1, startups: 0, passwords: [] });

      expectPasswordRequired(
        await suite.owner.patch(`${BASE}/${id}`, { ssl_mode: 'disable' }),
        /lowering ssl_mode from require to disable/,
      );
      expect((await suite.owner.get(`${BASE}/${id}`)).body.ssl_mode).toBe('require');
      expect(await test(id)).toMatchObject({ ok: false, error: { cause: 'tls' } });
      expect(listener).toMatchObject({ sslRequests: 2, startups: 0, passwords: [] });

      // Raising it, or giving the mode it has, needs nothing.
      expect((await suite.owner.patch(`${BASE}/${id}`, { ssl_mode: 'require' })).status).toBe(200);

      const fresh = password();
      const accepted = await suite.owner.patch(`${BASE}/${id}`, { ssl_mode: 'disable', password: fresh });
      expect(accepted.status).toBe(200);
      expect(await test(id)).toMatchObject({ ok: false, error: { cause: 'authentication_failed' } });
      expect(listener.passwords).toEqual([fresh]);
    },
  );

  it('asks for the password for every field that moves it, and for nothing else', async () => {
    const { id } = await create({
      host: 'DB.Example.test',
      port: 6543,
      ssl_mode: 'verify-full',
      ca_cert: TLS_PEER_CERT,
      password: password(),
    });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ database: 'other' }, /changing database/],
      [{ username: 'someone_else' }, /changing username/],
      [{ ssl_mode: 'require' }, /lowering ssl_mode from verify-full to require/],
      [{ ssl_mode: 'disable', port: 1 }, /changing port and lowering ssl_mode/],
      // Under verify-full the CAs decide which server passes for the host.
      [{ ca_cert: null, name: 'ca' }, /changing ca_cert under verify-full/],
      // A trailing dot makes the name absolute: it may resolve elsewhere through the search list.
      [{ host: 'db.example.test.' }, /changing host/],
      [{ host: 'db2.example.test', environment: 'staging' }, /changing host/],
    ];
    const before = (await suite.owner.get(`${BASE}/${id}`)).body;
    for (const [body, field] of cases) {
      const response = await suite.owner.patch(`${BASE}/${id}`, body);
      expectPasswordRequired(response, field);
    }
    expect((await suite.owner.get(`${BASE}/${id}`)).body).toEqual(before);

    // The same values, or the same host in another letter case, are no change.
    const same = await suite.owner.patch(`${BASE}/${id}`, {
      host: 'db.EXAMPLE.test',
      port: 6543,
      database: before.database,
      username: before.username,
      ssl_mode: 'verify-full',
      // Line endings do not make another certificate.
      ca_cert: TLS_PEER_CERT.replace(/\n/g, '\r\n'),
      environment: 'staging',
    });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ host: 'db.EXAMPLE.test', environment: 'staging' });
    // An empty password is a password too (trust authentication).
    const emptied = await suite.owner.patch(`${BASE}/${id}`, { port: 6544, password: '' });
    expect(emptied.body).toMatchObject({ port: 6544, has_password: false });
  });

  itNeverShowsAPassword(suite, { secrets: 5, answers: 30 });
});

// Connections in tests: request bodies built from the test servers' URLs, and the real dialects
// wrapped so that a test sees every connect, test and close, and so that nothing ever connects to
// anything but the loopback interface (the address guard's tests must prove refusals reach no one).
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import type { TargetConfig, TargetDialect, TargetHandle } from '../../src/dialects/dialect.ts';
import { dialects as realDialects } from '../../src/dialects/index.ts';
import type { DialectName } from '../../src/engine/schema/model.ts';
import type { Response } from './app.ts';
import { listenPeer, targetConfig } from './targets.ts';

/** A password that must never appear in an answer, a log line or the audit trail. */
export const secretPassword = () => `pw-${randomBytes(12).toString('hex')}`;

let counter = 0;

/** A POST /connections body for the database at a `postgres://` or `mysql://` URL. */
export function connectionBody(projectId: string, url: string, overrides: Record<string, unknown> = {}) {
  const config = targetConfig(url);
  return {
    project_id: projectId,
    name: `conn-${++counter}-${randomBytes(3).toString('hex')}`,
    dialect: url.startsWith('mysql') ? 'mysql' : 'postgresql',
    host: config.host,
    port: config.port,
    database: config.database,
    username: config.username,
    password: config.password,
    ssl_mode: 'disable',
    environment: 'development',
    ...overrides,
  };
}

const LOOPBACK = new Set(['::1', 'localhost']);
const isLoopback = (host: string) => LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

export interface WatchedDialects {
  dialects: Record<DialectName, TargetDialect>;
  /** Hosts passed to open(), in order. */
  opened: string[];
  /** Hosts passed to test(), in order. */
  tested: string[];
  /** Every config passed to open() or test(), in order. */
  configs: TargetConfig[];
  /** Handles closed. */
  closed: number;
}

/** The real dialects, counted, refusing (by throwing) any host but the loopback interface. */
export function watchedDialects(): WatchedDialects {
  const watched: WatchedDialects = {
    dialects: {} as WatchedDialects['dialects'],
    opened: [],
    tested: [],
    configs: [],
    closed: 0,
  };
  const loopbackOnly = (config: TargetConfig) => {
    watched.configs.push(config);
    if (!isLoopback(config.host)) throw new Error(`A test tried to connect to ${config.host}`);
  };
  for (const [name, dialect] of Object.entries(realDialects) as [DialectName, TargetDialect][]) {
    watched.dialects[name] = {
      ...dialect,
      async open(config): Promise<TargetHandle> {
        watched.opened.push(config.host);
        loopbackOnly(config);
        const handle = await dialect.open(config);
        return {
          ...handle,
          async close() {
            watched.closed += 1;
            await handle.close();
          },
        };
      },
      async test(config) {
        watched.tested.push(config.host);
        loopbackOnly(config);
        return dialect.test(config);
      },
    };
  }
  return watched;
}

/** Every string in a response (body and headers), for "the password is never in it" checks. */
export function responseText(response: Response): string {
  return JSON.stringify({ body: response.body, headers: response.headers });
}

/**
 * A TCP proxy on 127.0.0.1 in front of a PostgreSQL server that lets the first `allowQueries`
 * simple-protocol queries through (all connections together) and cuts the connection, both ways, on
 * the next one: a server that goes away in the middle of the work.
 */
export async function pgCuttingProxy(
  target: { host: string; port: number },
  allowQueries: number,
): Promise<{ port: number; close(): Promise<void> }> {
  let queries = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.on('data', (data) => client.write(data));
    // Frontend messages: the startup message is `int32 length` + body; then `type` + `int32 length`.
    let pending = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const header = started ? 5 : 4;
        if (pending.length < header) return;
        const length = started ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) return;
        if (started && pending[0] === 0x51 /* Q */ && ++queries > allowQueries) {
          client.destroy();
          upstream.destroy();
          return;
        }
        upstream.write(pending.subarray(0, length));
        pending = pending.subarray(length);
        started = true;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface PasswordCatcher {
  port: number;
  /** Every PasswordMessage received, in order: what a listener of an attacker's would have learnt. */
  passwords: string[];
  /** Startup messages received (a client that got this far would send its password next). */
  startups: number;
  /** SSLRequests received (each answered `N`: this listener speaks no TLS). */
  sslRequests: number;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * A PostgreSQL impostor on `host` (127.0.0.1 by default; any 127.x.y.z on Linux), `port` if given:
 * what an attacker would put where a connection points. It declines TLS (`N`), answers a startup
 * message with AuthenticationCleartextPassword ('R', code 3), records the PasswordMessage ('p') it
 * gets, and refuses the login (SQLSTATE 28P01, without quoting it) so that the client gives up.
 */
export async function passwordCatcher(
  listen: { host?: string; port?: number } = {},
): Promise<PasswordCatcher> {
  const caught = { passwords: [] as string[], startups: 0, sslRequests: 0 };
  const peer = await listenPeer((socket) => {
    let pending = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        // Before the startup: `int32 length` + `int32 code`; after it: `type` + `int32 length`.
        const header = started ? 5 : 8;
        if (pending.length < header) return;
        const length = started ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (!started) {
          const code = message.readInt32BE(4);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            if (code === SSL_REQUEST) caught.sslRequests += 1;
            socket.write('N');
            continue;
          }
          started = true;
          caught.startups += 1;
          const request = Buffer.alloc(9);
          request.write('R', 0);
          request.writeInt32BE(8, 1);
          request.writeInt32BE(3, 5);
          socket.write(request);
          continue;
        }
        if (message[0] === 0x70 /* p */) {
          caught.passwords.push(message.subarray(5, message.length - 1).toString('utf8'));
          socket.end(pgError('28P01', 'password authentication failed'));
          return;
        }
      }
    });
  }, listen);
  return Object.assign(caught, { port: peer.port, close: peer.close });
}

/** A PostgreSQL ErrorResponse ('E') with a FATAL severity, a SQLSTATE and a message. */
function pgError(code: string, text: string): Buffer {
  const field = (tag: string, value: string) =>
    Buffer.concat([Buffer.from(tag), Buffer.from(value), Buffer.alloc(1)]);
  const body = Buffer.concat([
    field('S', 'FATAL'),
    field('V', 'FATAL'),
    field('C', code),
    field('M', text),
    Buffer.alloc(1),
  ]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

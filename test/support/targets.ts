// TargetConfig values for the dialects, built from the test servers' URLs, and network peers that
// misbehave on purpose (a port nobody listens on, a server that accepts and then says nothing, a
// forwarder that goes away).
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { TargetConfig } from '../../src/dialects/dialect.ts';

/** A dialect config for the database at a `postgres://` or `mysql://` URL. */
export function targetConfig(url: string, overrides: Partial<TargetConfig> = {}): TargetConfig {
  const parsed = new URL(url);
  const defaultPort = parsed.protocol.startsWith('mysql') ? 3306 : 5432;
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : defaultPort,
    database: decodeURIComponent(parsed.pathname.slice(1)),
    username: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    ssl_mode: 'disable',
    connect_timeout_ms: 5_000,
    statement_timeout_ms: 30_000,
    ...overrides,
  };
}

/** A TCP port on 127.0.0.1 that was free a moment ago: connecting to it is refused. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * A TCP server on `listen.host` (127.0.0.1 by default) that a test closes for good: `close` cuts
 * every connection it has and stops listening. `onSocket` gets each connection, and `track` for
 * sockets it opens itself so that they are cut too.
 */
export async function listenPeer(
  onSocket: (socket: Socket, track: (socket: Socket) => void) => void,
  listen: { host?: string; port?: number } = {},
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  };
  const server: Server = createServer((socket) => {
    track(socket);
    onSocket(socket, track);
  });
  await new Promise<void>((resolve) => server.listen(listen.port ?? 0, listen.host ?? '127.0.0.1', resolve));
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

/**
 * A TCP forwarder listening on `listen.host` (any 127.x.y.z works on Linux) to `target`: a database
 * server at another address, so that a test can move a name from one address to another. `close`
 * cuts every forwarded connection and stops listening, as a server that went away.
 */
export function tcpForwarder(
  listen: { host: string; port?: number },
  target: { host: string; port: number },
): Promise<{ port: number; close(): Promise<void> }> {
  return listenPeer((client, track) => {
    const upstream = connect(target.port, target.host);
    track(upstream);
    for (const socket of [client, upstream])
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    client.pipe(upstream);
    upstream.pipe(client);
  }, listen);
}

/** A server that accepts connections and never answers: the client's connect timeout must fire. */
export function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  return listenPeer(() => {});
}

/**
 * A PostgreSQL look-alike that asks for a cleartext password and refuses it with SQLSTATE 28P01,
 * quoting the password back in its message: the worst case for a client that must never show it.
 */
export function refusingPgServer(): Promise<{ port: number; close(): Promise<void> }> {
  return listenPeer((socket) => {
    let startupSeen = false;
    socket.on('data', (data) => {
      if (!startupSeen) {
        startupSeen = true;
        // AuthenticationCleartextPassword: 'R', length 8, code 3.
        const request = Buffer.alloc(9);
        request.write('R', 0);
        request.writeInt32BE(8, 1);
        request.writeInt32BE(3, 5);
        socket.write(request);
        return;
      }
      // PasswordMessage: 'p', length, password, NUL.
      const password = data.subarray(5, data.length - 1).toString('utf8');
      const field = (code: string, value: string) =>
        Buffer.concat([Buffer.from(code), Buffer.from(value), Buffer.alloc(1)]);
      const body = Buffer.concat([
        field('S', 'FATAL'),
        field('V', 'FATAL'),
        field('C', '28P01'),
        field('M', `password authentication failed (got "${password}")`),
        Buffer.alloc(1),
      ]);
      const header = Buffer.alloc(5);
      header.write('E', 0);
      header.writeInt32BE(body.length + 4, 1);
      socket.end(Buffer.concat([header, body]));
    });
  });
}

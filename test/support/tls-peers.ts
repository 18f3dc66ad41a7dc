// TLS look-alikes of PostgreSQL and MySQL on 127.0.0.1, for what the dialects' TLS does when they
// connect to an address but must speak to a name: each negotiates TLS the way its engine does
// (PostgreSQL's SSLRequest; MySQL's SSL capability and SSL request packet), shows a certificate for
// TLS_PEER_NAME, records the SNI name each client sent, and then refuses the login with the engine's
// own error. A client that reports that refusal has accepted the certificate; one that rejects the
// certificate reports a TLS failure.
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { createSecureContext, TLSSocket } from 'node:tls';
import { listenPeer } from './targets.ts';

/** The only name the peers' certificate carries. */
export const TLS_PEER_NAME = 'db.rebind.test';

/** The peers' certificate (self-signed, EC P-256, valid for a century): the CA to trust them by. */
export const TLS_PEER_CERT = `-----BEGIN CERTIFICATE-----
MIIBpTCCAUqgAwIBAgIUPHv1cEhWKXAb4ypiH1I6Et/ojscwCgYIKoZIzj0EAwIw
GTEXMBUGA1UEAwwOZGIucmViaW5kLnRlc3QwIBcNMjYxMTIxMDc1ODMxWhgPMjEy
NjEwMjgwNzU4MzFaMBkxFzAVBgNVBAMMDmRiLnJlYmluZC50ZXN0MFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAEyFnPD+qxXtEqUQ2YR4XXJA3cr192BDcDJrVu8jNl
iKj3KdfSjNQcgFjrEO/XlT55KwFT6gY5LULN0DqR+bHclKNuMGwwHQYDVR0OBBYE
FDc8xQgwthdmTw64OJP9RlLsUzi5MB8GA1UdIwQYMBaAFDc8xQgwthdmTw64OJP9
RlLsUzi5MBkGA1UdEQQSMBCCDmRiLnJlYmluZC50ZXN0MA8GA1UdEwEB/wQFMAMB
Af8wCgYIKoZIzj0EAwIDSQAwRgIhAOwb6TR3nPCW3TsZoFTpGeE5oYmHFw2N4kQ4
nfUBN1d0AiEA66zdhhiBZc0gR3fXwqWDWAohiiDPwlZeIQeWyRyPloQ=
-----END CERTIFICATE-----`;

// Its key: made for these tests only, it guards nothing.
const TLS_PEER_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgs/J/8PPy9lgpf0AB
3dhGcEmSFGYAbDS5fWtlMFPs7WihRANCAATIWc8P6rFe0SpRDZhHhdckDdyvX3YE
NwMmtW7yM2WIqPcp19KM1ByAWOsQ79eVPnkrAVPqBjktQs3QOpH5sdyU
-----END PRIVATE KEY-----`;

const CONTEXT = createSecureContext({ key: TLS_PEER_KEY, cert: TLS_PEER_CERT });

export interface TlsPeer {
  port: number;
  /** The SNI name of each handshake that sent one, in order. */
  serverNames: string[];
  /** Handshakes the client finished, that is, certificates it accepted. */
  accepted: number;
  close(): Promise<void>;
}

interface Engine {
  /** What the server says first (MySQL's greeting), if anything. */
  greeting?: Buffer;
  /** Bytes the client sends before TLS starts. */
  preamble: number;
  /** The server's answer to them (PostgreSQL's 'S'), if any. */
  answer?: Buffer;
  /** The refusal of the login that comes over TLS. */
  refusal: Buffer;
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value);
  return buffer;
}

/** A MySQL packet: 3-byte length, sequence id, payload. */
function mysqlPacket(sequence: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header.writeUInt8(sequence, 3);
  return Buffer.concat([header, payload]);
}

// LONG_PASSWORD, FOUND_ROWS, LONG_FLAG, CONNECT_WITH_DB, PROTOCOL_41, SSL, TRANSACTIONS,
// SECURE_CONNECTION; then MULTI_RESULTS and PLUGIN_AUTH.
const MYSQL_CAPABILITIES = 0x1 | 0x2 | 0x4 | 0x8 | 0x200 | 0x800 | 0x2000 | 0x8000 | 0x20000 | 0x80000;

const ENGINES: Record<'postgresql' | 'mysql', Engine> = {
  postgresql: {
    preamble: 8, // SSLRequest: length 8, code 80877103
    answer: Buffer.from('S'),
    refusal: (() => {
      const field = (code: string, value: string) =>
        Buffer.concat([Buffer.from(code), Buffer.from(value), Buffer.alloc(1)]);
      const body = Buffer.concat([
        field('S', 'FATAL'),
        field('V', 'FATAL'),
        field('C', '28P01'),
        field('M', 'password authentication failed'),
        Buffer.alloc(1),
      ]);
      const header = Buffer.alloc(5);
      header.write('E', 0);
      header.writeInt32BE(body.length + 4, 1);
      return Buffer.concat([header, body]);
    })(),
  },
  mysql: {
    // Initial handshake, protocol 10, with 20 bytes of auth-plugin data in two parts.
    greeting: mysqlPacket(
      0,
      Buffer.concat([
        Buffer.from([10]),
        Buffer.from('8.0.36-tls-peer\0'),
        Buffer.from([1, 0, 0, 0]), // connection id
        Buffer.alloc(8, 0x61),
        Buffer.alloc(1),
        u16(MYSQL_CAPABILITIES & 0xffff),
        Buffer.from([0x21]), // utf8_general_ci
        u16(0x0002), // autocommit
        u16(MYSQL_CAPABILITIES >>> 16),
        Buffer.from([21]),
        Buffer.alloc(10),
        Buffer.concat([Buffer.alloc(12, 0x62), Buffer.alloc(1)]),
        Buffer.from('mysql_native_password\0'),
      ]),
    ),
    preamble: 4 + 32, // SSLRequest packet
    // ER_ACCESS_DENIED_ERROR, after the handshake response (sequence 2).
    refusal: mysqlPacket(
      3,
      Buffer.concat([Buffer.from([0xff]), u16(1045), Buffer.from('#28000Access denied for user')]),
    ),
  },
};

/**
 * TLS over bytes fed by hand: the client may send its first TLS bytes in the same packet as the
 * preamble, which a TLSSocket wrapped around the socket itself would never see.
 */
function tlsOver(
  socket: Socket,
  peer: Pick<TlsPeer, 'serverNames' | 'accepted'>,
  refusal: Buffer,
): (chunk: Buffer) => void {
  const raw = new Duplex({
    read() {},
    write(chunk, _encoding, done) {
      socket.write(chunk, done);
    },
    final(done) {
      socket.end();
      done();
    },
  });
  const tls = new TLSSocket(raw, {
    isServer: true,
    secureContext: CONTEXT,
    SNICallback: (name, done) => {
      peer.serverNames.push(name);
      done(null, CONTEXT);
    },
  });
  tls.on('error', () => socket.destroy());
  tls.on('secure', () => {
    peer.accepted += 1;
    tls.once('data', () => tls.end(refusal));
  });
  socket.on('end', () => raw.push(null));
  return (chunk) => raw.push(chunk);
}

/** A TLS peer of `engine` on 127.0.0.1. */
export async function tlsPeer(engine: 'postgresql' | 'mysql'): Promise<TlsPeer> {
  const { greeting, preamble, answer, refusal } = ENGINES[engine];
  const seen: Pick<TlsPeer, 'serverNames' | 'accepted'> = { serverNames: [], accepted: 0 };
  const listening = await listenPeer((socket) => {
    if (greeting) socket.write(greeting);
    let pending = Buffer.alloc(0);
    let feed: ((chunk: Buffer) => void) | undefined;
    socket.on('data', (chunk) => {
      if (feed) return feed(chunk);
      pending = Buffer.concat([pending, chunk]);
      if (pending.length < preamble) return;
      if (answer) socket.write(answer);
      feed = tlsOver(socket, seen, refusal);
      if (pending.length > preamble) feed(pending.subarray(preamble));
    });
  });
  return Object.assign(seen, listening);
}

// What kind of address an IP literal is, for every guard that decides where the service may open a
// socket on a user's behalf: database connections, webhooks and audit export sinks (docs/contract.md §11.1). One
// classifier, pure, so that the three cannot disagree.
//
// An IPv6 address can carry an IPv4 one that a gateway or the host's own stack turns back into IPv4
// traffic: IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, IPv4-translated
// `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` (and the local-use `64:ff9b:1::/48`), 6to4 `2002::/16` and
// Teredo `2001::/32` (its server, and its client with the bits inverted). Such an address is judged by
// every IPv4 address it carries, the strictest verdict winning: `::a9fe:a9fe` is the metadata address.
//
// Parsing is ipaddr.js (what Fastify's proxy-addr uses). It reads `::a.b.c.d` as `::ffff:a.b.c.d`;
// both carry the IPv4 address in the last 32 bits, so that does not change a verdict.
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressKind = 'metadata' | 'link_local' | 'loopback' | 'private' | 'public';

/** Strictest first: the order in which kinds are checked and in which carried addresses win. */
const SEVERITY: readonly AddressKind[] = ['metadata', 'link_local', 'loopback', 'private', 'public'];

function blockList(v4: [string, number][], v6: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

const RANGES: Record<Exclude<AddressKind, 'public'>, BlockList> = {
  metadata: blockList(
    [
      ['169.254.169.254', 32], // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
      ['169.254.170.2', 32], // AWS ECS task metadata
      ['100.100.100.200', 32], // Alibaba Cloud
      ['192.0.0.192', 32], // Oracle Cloud (legacy)
      ['168.63.129.16', 32], // Azure WireServer
    ],
    [['fd00:ec2::254', 128]], // AWS IMDS over IPv6
  ),
  link_local: blockList([['169.254.0.0', 16]], [['fe80::', 10]]),
  loopback: blockList(
    [
      ['127.0.0.0', 8],
      ['0.0.0.0', 8], // "this host": connecting to 0.0.0.0 reaches the local machine
    ],
    [
      ['::1', 128],
      ['::', 128],
    ],
  ),
  private: blockList(
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10], // carrier-grade NAT, used as a private range by many clouds and VPNs
    ],
    [['fc00::', 7]], // unique local addresses
  ),
};

/** The kind of an address by its own bits only (no unwrapping). */
function ownKind(address: string, type: 'ipv4' | 'ipv6'): AddressKind {
  for (const kind of ['metadata', 'link_local', 'loopback', 'private'] as const)
    if (RANGES[kind].check(address, type)) return kind;
  return 'public';
}

const ipv4 = (bytes: number[], at: number) => bytes.slice(at, at + 4).join('.');
const zero = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

/**
 * The IPv4 addresses an IPv6 address carries (none for a plain IPv6 address), and whether its prefix
 * is itself local (the local-use NAT64 prefix of RFC 8215 is private whatever it carries).
 */
export function carriedIPv4(ipv6: string): { addresses: string[]; localPrefix: boolean } {
  const bytes = ipaddr.IPv6.parse(ipv6).toByteArray();
  const word = (i: number) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!;
  // ::a.b.c.d (compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, RFC 6145)
  if (
    zero(bytes, 0, 8) &&
    (zero(bytes, 8, 12) || (word(4) === 0 && word(5) === 0xffff) || (word(4) === 0xffff && word(5) === 0))
  )
    return { addresses: [ipv4(bytes, 12)], localPrefix: false };
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052)
  if (word(0) === 0x64 && word(1) === 0xff9b && zero(bytes, 4, 12))
    return { addresses: [ipv4(bytes, 12)], localPrefix: false };
  // NAT64 local-use prefix 64:ff9b:1::/48 (RFC 8215): its operator picks where the IPv4 address sits;
  // the /96 position is the usual one.
  if (word(0) === 0x64 && word(1) === 0xff9b && word(2) === 1)
    return { addresses: [ipv4(bytes, 12)], localPrefix: true };
  // 6to4 2002:a.b.c.d::/48 (RFC 3056)
  if (word(0) === 0x2002) return { addresses: [ipv4(bytes, 2)], localPrefix: false };
  // Teredo 2001:0::/32 (RFC 4380): the server in bits 32-63, the client inverted in the last 32
  if (word(0) === 0x2001 && word(1) === 0) {
    const client = bytes.slice(12, 16).map((b) => b ^ 0xff);
    return { addresses: [ipv4(bytes, 4), client.join('.')], localPrefix: false };
  }
  return { addresses: [], localPrefix: false };
}

/** What kind of address an IP literal is: the strictest of its own kind and of any IPv4 it carries. */
export function addressKind(address: string): AddressKind {
  const bare = address.split('%')[0]!; // an IPv6 zone (fe80::1%eth0) is not part of the address
  const family = isIP(bare);
  if (family === 0) throw new Error(`Not an IP address: ${address}`);
  if (family === 4) return ownKind(bare, 'ipv4');
  const { addresses, localPrefix } = carriedIPv4(bare);
  const kinds = [
    ownKind(bare, 'ipv6'),
    ...addresses.map((carried) => ownKind(carried, 'ipv4')),
    ...(localPrefix ? (['private'] as const) : []),
  ];
  return SEVERITY.find((kind) => kinds.includes(kind)) ?? 'public';
}

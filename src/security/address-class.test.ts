// The one address classifier of connections, webhooks and audit sinks: every range, and every IPv6
// form that carries an IPv4 address judged by the address it carries (docs/contract.md §11.1).
import { describe, expect, it } from 'vitest';
import { addressKind, carriedIPv4 } from './address-class.ts';

describe('addressKind', () => {
  it.each([
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.0.1', 'link_local'],
    ['169.254.255.255', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['127.0.0.1', 'loopback'],
    ['127.10.20.30', 'loopback'],
    ['::1', 'loopback'],
    ['::', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['172.32.0.1', 'public'],
    ['172.15.255.255', 'public'],
    ['169.253.255.255', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['fec0::1', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  // Each form that carries an IPv4 address, written as attackers write it (hex words and dotted).
  it.each([
    // IPv4-mapped
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:8.8.8.8', 'public'],
    // IPv4-compatible (deprecated, still routed by some stacks)
    ['::a9fe:a9fe', 'metadata'],
    ['::169.254.169.254', 'metadata'],
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
    ['::a9fe:1', 'link_local'],
    ['::808:808', 'public'],
    // IPv4-translated (RFC 6145)
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['::ffff:0:7f00:1', 'loopback'],
    // NAT64 well-known prefix
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::c0a8:101', 'private'],
    ['64:ff9b::a9fe:1', 'link_local'],
    ['64:ff9b::808:808', 'public'],
    // NAT64 local-use prefix: private at least, and what it carries
    ['64:ff9b:1::808:808', 'private'],
    ['64:ff9b:1::a9fe:a9fe', 'metadata'],
    // 6to4
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['2002:808:808::1', 'public'],
    // Teredo: server 65.54.227.120 (public); the client is the last 32 bits inverted
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata'], // client 169.254.169.254
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // client 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'], // client 10.0.0.1
    ['2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7', 'metadata'], // server 169.254.169.254, client 8.8.8.8
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'], // client 8.8.8.8
  ])('%s carries an address that is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it('names the IPv4 addresses a form carries', () => {
    expect(carriedIPv4('64:ff9b::a9fe:a9fe').addresses).toEqual(['169.254.169.254']);
    expect(carriedIPv4('2002:a9fe:a9fe::1').addresses).toEqual(['169.254.169.254']);
    expect(carriedIPv4('2001:0:4136:e378:8000:63bf:5601:5601').addresses).toEqual([
      '65.54.227.120',
      '169.254.169.254',
    ]);
    expect(carriedIPv4('2606:4700:4700::1111').addresses).toEqual([]);
  });

  it('throws on something that is not an address', () => {
    expect(() => addressKind('db.example.com')).toThrow('Not an IP address');
  });
});

// HMAC-SHA256 (RFC 2104 over FIPS 180-4's SHA-256) specialised for what deterministic anonymization
// does a million times a column: one key and one purpose label, many short values. Both pads and
// the purpose's whole blocks are compressed once; a value then costs the compression of its own
// block(s) and of the outer block, with no object, view or copy per value. The compressions run in
// WebAssembly (sha256.wat), whose native rotate makes them about twice as fast as the same code in
// JavaScript; a value crosses into it with one call, written straight into its memory. General
// libraries (@noble/hashes, hash-wasm) spend as much again on state copies and bookkeeping around
// the same compressions, and Node's OpenSSL calls cost more per call than a short value's whole
// hash. Checked against node:crypto's createHmac (hmac-sha256.test.ts).
import { createHash } from 'node:crypto';
import { SHA256_WASM } from './sha256-wasm.ts';

const ROUND_CONSTANTS = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL_STATE = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const BLOCK = 64;
/** The layout of the module's memory, in bytes (sha256.wat's header). */
const AT = { constants: 0, inner: 512, outer: 544, mac: 608, outerBlock: 640, message: 1024 } as const;
const PAGE = 65_536;

interface Sha256Exports {
  memory: WebAssembly.Memory;
  compress(state: number, block: number): void;
  mac(length: number, hashedBefore: number): void;
}

let compiled: WebAssembly.Module | undefined;
const encoder = new TextEncoder();

/** Writes the 32-byte MAC of `prefix ‖ value` into `out`. */
export interface PrefixedMac {
  (value: string, out: Uint8Array): void;
  /** The same for a value given as its UTF-8 bytes, data[start, end): no string is made of them. */
  utf8(data: Uint8Array, start: number, end: number, out: Uint8Array): void;
}

/**
 * HMAC-SHA256 under `key` of `prefix` followed by each value's UTF-8 bytes. Not reentrant (it
 * reuses its memory), which a transform, run on one thread, never needs.
 */
export function prefixedHmacSha256(key: Uint8Array, prefix: Uint8Array): PrefixedMac {
  compiled ??= new WebAssembly.Module(Buffer.from(SHA256_WASM, 'base64'));
  const { memory, compress, mac } = new WebAssembly.Instance(compiled).exports as unknown as Sha256Exports;
  let bytes = new Uint8Array(memory.buffer);
  new Int32Array(memory.buffer, AT.constants, 64).set(ROUND_CONSTANTS);

  // The pads: the key (hashed first when longer than a block) XOR 0x36 and 0x5c, compressed once.
  const k = key.length > BLOCK ? createHash('sha256').update(key).digest() : key;
  for (const [state, byte] of [
    [AT.inner, 0x36],
    [AT.outer, 0x5c],
  ] as const) {
    new Int32Array(memory.buffer, state, 8).set(INITIAL_STATE);
    const block = bytes.subarray(AT.message, AT.message + BLOCK).fill(byte);
    for (let i = 0; i < k.length; i++) block[i] = k[i]! ^ byte;
    compress(state, AT.message);
  }
  // The prefix's whole blocks are part of the inner state; its rest starts every value's message.
  const whole = prefix.length - (prefix.length % BLOCK);
  for (let at = 0; at < whole; at += BLOCK) {
    bytes.set(prefix.subarray(at, at + BLOCK), AT.message);
    compress(AT.inner, AT.message);
  }
  const rest = prefix.subarray(whole);
  bytes.set(rest, AT.message);
  const hashedBefore = BLOCK + whole;
  // The outer block's padding, after the 32 bytes of the inner digest: 0x80, zeros, 768 bits.
  bytes.fill(0, AT.outerBlock + 32, AT.outerBlock + BLOCK);
  bytes[AT.outerBlock + 32] = 0x80;
  bytes[AT.outerBlock + BLOCK - 2] = ((BLOCK + 32) * 8) >>> 8;
  let valueBytes = bytes.subarray(AT.message + rest.length);
  let result = bytes.subarray(AT.mac, AT.mac + 32);

  /** Room for a value of `length` bytes and up to 72 bytes of padding after it. */
  const reserve = (length: number) => {
    const room = length + 2 * BLOCK;
    if (room <= valueBytes.length) return;
    memory.grow(Math.ceil((room - valueBytes.length) / PAGE));
    bytes = new Uint8Array(memory.buffer);
    valueBytes = bytes.subarray(AT.message + rest.length);
    result = bytes.subarray(AT.mac, AT.mac + 32);
  };
  const ofText = (value: string, out: Uint8Array) => {
    // At most 3 UTF-8 bytes per UTF-16 unit.
    reserve(value.length * 3);
    mac(rest.length + encoder.encodeInto(value, valueBytes).written, hashedBefore);
    out.set(result);
  };
  const utf8 = (data: Uint8Array, start: number, end: number, out: Uint8Array) => {
    reserve(end - start);
    // A field is a few dozen bytes: a loop costs less than a view of them to copy from.
    for (let i = start; i < end; i++) valueBytes[i - start] = data[i]!;
    mac(rest.length + end - start, hashedBefore);
    out.set(result);
  };
  return Object.assign(ofText, { utf8 });
}

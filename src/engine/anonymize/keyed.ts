// The entropy every transformer draws from. Deterministic mode is a keyed HMAC of the input with a
// purpose label (the transformer's kind and options, never the table or column), so one value gets
// one replacement in every table, column and run of a config; random mode draws fresh bytes. Either
// way a transformer only ever sees "32 bytes for this value", and picks or builds from them: no
// generator is reseeded per value, which is what makes other tools slow.
import { createHash, randomFillSync } from 'node:crypto';
import { prefixedHmacSha256 } from './hmac-sha256.ts';

const encoder = new TextEncoder();

export interface ByteSource {
  /** 32 bytes for `input`: the same for the same input when deterministic. */
  bytes(input: string): Buffer;
  /** bytes() of the text whose UTF-8 is data[start, end), without making a string of it. */
  utf8Bytes(data: Uint8Array, start: number, end: number): Buffer;
  /** `length` bytes for `input` (a counter-mode expansion of bytes()), for values built char by char. */
  stream(input: string, length: number): Buffer;
}

/** The purpose label: kind and options in a canonical order, so reordered JSON keys change nothing. */
export function purposeLabel(kind: string, options: Record<string, unknown>): string {
  return `${kind}:${canonicalJson(options)}`;
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function expand(first: Buffer, length: number): Buffer {
  if (length <= first.length) return first.subarray(0, length);
  const blocks = [first];
  let total = first.length;
  for (let counter = 1; total < length; counter++) {
    const block = createHash('sha256').update(first).update(String(counter)).digest();
    blocks.push(block);
    total += block.length;
  }
  return Buffer.concat(blocks, total).subarray(0, length);
}

/**
 * HMAC-SHA256 (RFC 2104) under the config's key of `purpose NUL input`. This runs once per value of
 * every deterministic column, so it is the specialised implementation of hmac-sha256.ts: the pads
 * and the purpose are compressed once, a short value costs two SHA-256 block compressions.
 */
export function keyedSource(key: Buffer, purpose: string): ByteSource {
  const mac = prefixedHmacSha256(key, encoder.encode(`${purpose}\u0000`));
  // A fresh (pooled) Buffer per value: callers may hold one value's bytes while asking for the next.
  const bytes = (value: string) => {
    const out = Buffer.allocUnsafe(32);
    mac(value, out);
    return out;
  };
  const utf8Bytes = (data: Uint8Array, start: number, end: number) => {
    const out = Buffer.allocUnsafe(32);
    mac.utf8(data, start, end, out);
    return out;
  };
  return { bytes, utf8Bytes, stream: (value, length) => expand(bytes(value), length) };
}

/** Fresh random bytes per call, drawn from a pooled buffer (one system call per 128 values). */
export function randomSource(): ByteSource {
  const pool = Buffer.alloc(4096);
  let offset = pool.length;
  const bytes = () => {
    if (offset + 32 > pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const out = Buffer.from(pool.subarray(offset, offset + 32));
    offset += 32;
    return out;
  };
  return { bytes, utf8Bytes: bytes, stream: (_input, length) => expand(bytes(), length) };
}

/** An index in [0, n) from 6 bytes at `at`: the modulo bias is below 2^-28 for any dictionary here. */
export function pickIndex(bytes: Buffer, n: number, at = 0): number {
  return bytes.readUIntBE(at % 26, 6) % n;
}

export function pick<T>(list: readonly T[], bytes: Buffer, at = 0): T {
  return list[pickIndex(bytes, list.length, at)] as T;
}

/** A fraction in [0, 1) from 6 bytes at `at`. */
export function unitFraction(bytes: Buffer, at = 0): number {
  return bytes.readUIntBE(at % 26, 6) / 2 ** 48;
}

const BASE32_CODES = Array.from('abcdefghijklmnopqrstuvwxyz234567', (c) => c.charCodeAt(0));

/**
 * `length` lowercase base32 characters (5 bits each) from the bytes, starting at byte `from` (and
 * wrapping round to it): keyed tags for unique values.
 */
export function base32Tag(bytes: Buffer, length: number, from = 0): string {
  const span = bytes.length - from;
  // Character codes first, one string at the end: a string grown a character at a time was a
  // visible part of an e-mail's cost (this runs once per value).
  const codes: number[] = new Array(length);
  let n = 0;
  let buffer = 0;
  let bits = 0;
  for (let i = 0; n < length; i++) {
    buffer = (buffer << 8) | (bytes[from + (i % span)] as number);
    bits += 8;
    while (bits >= 5 && n < length) {
      codes[n++] = BASE32_CODES[(buffer >> (bits - 5)) & 31] as number;
      bits -= 5;
    }
    buffer &= 0xff;
  }
  return String.fromCharCode.apply(null, codes);
}

/** Replaces `#` with a digit and `!` with a digit 2–9, drawing one byte each from `stream`. */
export function fillDigits(pattern: string, stream: Buffer): string {
  let i = 0;
  let out = '';
  for (const ch of pattern) {
    const b = stream[i++ % stream.length] as number;
    if (ch === '#') out += String(b % 10);
    else if (ch === '!') out += String(2 + (b % 8));
    else out += ch;
  }
  return out;
}

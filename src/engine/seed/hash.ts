// The entropy of seeding: every value is a function of (seed, table, column, row number, attempt),
// never of a generator's state, so the same seed gives the same rows whatever the batch size or the
// order rows are asked for, and another seed other rows. A column's stream is keyed once (SHA-256 of
// seed, table and column, cut to 32 bits); each value then costs two rounds of the murmur3
// finaliser, not an HMAC: seeding needs reproducibility, not secrecy, and the hot path runs once per
// value of every generated column (an HMAC per value measured 145k values/s here).
import { createHash } from 'node:crypto';

/** A 32-bit key for one stream of values: the seed, and the labels (table, column, purpose). */
export function streamKey(seed: number, ...labels: string[]): number {
  const digest = createHash('sha256')
    .update(`${seed}\u0000${labels.join('\u0000')}`)
    .digest();
  return digest.readUInt32BE(0);
}

/** The murmur3 32-bit finaliser: a bijection on 32-bit words that mixes every bit. */
export function fmix(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A uniform 32-bit word for `row` of the stream `key` (and a redraw `attempt`, 0 at first). */
export function word(key: number, row: number, attempt = 0, lane = 0): number {
  const high = Math.floor(row / 0x100000000);
  const mixed = (key ^ fmix(row >>> 0) ^ Math.imul(high + 1, 0x27d4eb2f)) >>> 0;
  return fmix(fmix(mixed) + Math.imul(attempt, 0x9e3779b9) + Math.imul(lane + 1, 0x165667b1));
}

/** A fraction in [0, 1) with 53 bits for `row` of the stream. */
export function unit(key: number, row: number, attempt = 0, lane = 0): number {
  const a = word(key, row, attempt, lane * 2);
  const b = word(key, row, attempt, lane * 2 + 1);
  return ((a >>> 5) * 67108864 + (b >>> 6)) / 9007199254740992;
}

/**
 * An index in [0, n) for `row`; n at most 2^53. Up to 2^20 one 32-bit word is enough (its bias,
 * n / 2^32, is below one in four thousand) and costs half of the 53-bit fraction.
 */
export function index(key: number, row: number, n: number, attempt = 0, lane = 0): number {
  if (n <= 0x100000) return Math.floor((word(key, row, attempt, lane * 2) * n) / 0x100000000);
  return Math.floor(unit(key, row, attempt, lane) * n);
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

/**
 * A bijection of [0, n): row `i` maps to a distinct position as long as i < n (an affine
 * permutation `(i * stride + offset) mod n` with a stride coprime to n), for unique values drawn
 * from a finite domain without remembering the ones already used. n at most 2^26 keeps the
 * product exact in a double; larger domains fall back to a plain offset sequence.
 */
export function permutation(key: number, n: number): (i: number) => number {
  if (n <= 1) return () => 0;
  const offset = word(key, 0, 0, 7) % n;
  if (n > 2 ** 26) return (i) => (i + offset) % n;
  let stride = Math.max(1, Math.floor(n * 0.6180339887) + (word(key, 1, 0, 7) % 97));
  while (gcd(stride, n) !== 1) stride++;
  return (i) => ((((i % n) * stride) % n) + offset) % n;
}

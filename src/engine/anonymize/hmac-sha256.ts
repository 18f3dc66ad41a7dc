// HMAC-SHA256 (RFC 2104 over FIPS 180-4's SHA-256) specialised for what deterministic anonymization
// does a million times a column: one key and one purpose label, many short values. Both pads and
// the purpose's whole blocks are compressed once; a value then costs the compression of its own
// block(s) and of the outer block, with no object, view or copy per value. General-purpose
// libraries (@noble/hashes with a cloned state) spend as much again on state copies, DataViews and
// buffer bookkeeping around the same compressions, and Node's OpenSSL calls cost more per call than
// a short value's whole hash. Checked against node:crypto's createHmac (hmac-sha256.test.ts).

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
const encoder = new TextEncoder();

/** One SHA-256 compression of the 64 bytes of `data` at `at` into `state`; `w` is scratch space. */
function compress(state: Int32Array, data: Uint8Array, at: number, w: Int32Array): void {
  for (let i = 0; i < 16; i++, at += 4)
    w[i] = (data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!;
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15]!;
    const b = w[i - 2]!;
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + ROUND_CONSTANTS[i]! + w[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}

/** Appends SHA-256's padding to the `length` message bytes of `data`, for `total` bytes hashed in all; the padded length. */
function pad(data: Uint8Array, length: number, total: number): number {
  data[length] = 0x80;
  const end = (Math.floor((length + 8) / BLOCK) + 1) * BLOCK;
  data.fill(0, length + 1, end - 4);
  // The length in bits as a 64-bit big-endian number; no value here comes near 2^32 bits.
  const bits = total * 8;
  data[end - 4] = bits >>> 24;
  data[end - 3] = (bits >>> 16) & 0xff;
  data[end - 2] = (bits >>> 8) & 0xff;
  data[end - 1] = bits & 0xff;
  return end;
}

/** The state after compressing the key's pad block (key XOR `byte`, the key hashed first when longer than a block). */
function paddedKeyState(key: Uint8Array, byte: number, w: Int32Array): Int32Array {
  const k = key.length > BLOCK ? sha256(key, w) : key;
  const block = new Uint8Array(BLOCK).fill(byte);
  for (let i = 0; i < k.length; i++) block[i] = k[i]! ^ byte;
  const state = INITIAL_STATE.slice();
  compress(state, block, 0, w);
  return state;
}

function sha256(message: Uint8Array, w: Int32Array): Uint8Array {
  const data = new Uint8Array(Math.ceil((message.length + 9) / BLOCK) * BLOCK);
  data.set(message);
  const end = pad(data, message.length, message.length);
  const state = INITIAL_STATE.slice();
  for (let at = 0; at < end; at += BLOCK) compress(state, data, at, w);
  const out = new Uint8Array(32);
  writeState(state, out);
  return out;
}

function writeState(state: Int32Array, out: Uint8Array): void {
  for (let i = 0, at = 0; i < 8; i++, at += 4) {
    const word = state[i]!;
    out[at] = word >>> 24;
    out[at + 1] = (word >>> 16) & 0xff;
    out[at + 2] = (word >>> 8) & 0xff;
    out[at + 3] = word & 0xff;
  }
}

/**
 * HMAC-SHA256 under `key` of `prefix` followed by each value's UTF-8 bytes: the returned function
 * writes the 32-byte MAC of `prefix ‖ value` into `out`. Not reentrant (it reuses its buffers), which
 * a transform, run on one thread, never needs.
 */
export function prefixedHmacSha256(
  key: Uint8Array,
  prefix: Uint8Array,
): (value: string, out: Uint8Array) => void {
  const w = new Int32Array(64);
  const inner = paddedKeyState(key, 0x36, w);
  const outer = paddedKeyState(key, 0x5c, w);
  // The prefix's whole blocks are part of the inner state; its rest starts every value's message.
  const whole = prefix.length - (prefix.length % BLOCK);
  for (let at = 0; at < whole; at += BLOCK) compress(inner, prefix, at, w);
  const rest = prefix.subarray(whole);
  const hashedBefore = BLOCK + whole;
  let message = new Uint8Array(BLOCK * 4);
  message.set(rest);
  const state = new Int32Array(8);
  const outerBlock = new Uint8Array(BLOCK);
  pad(outerBlock, 32, BLOCK + 32);

  return (value, out) => {
    // At most 3 UTF-8 bytes per UTF-16 unit, and up to 72 bytes of padding.
    const room = rest.length + value.length * 3 + 2 * BLOCK;
    if (room > message.length) {
      message = new Uint8Array(room);
      message.set(rest);
    }
    const length = rest.length + encoder.encodeInto(value, message.subarray(rest.length)).written;
    const end = pad(message, length, hashedBefore + length);
    state.set(inner);
    for (let at = 0; at < end; at += BLOCK) compress(state, message, at, w);
    writeState(state, outerBlock);
    state.set(outer);
    compress(state, outerBlock, 0, w);
    writeState(state, out);
  };
}

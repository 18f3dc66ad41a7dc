import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateWasmModule, WASM_MODULE_FILE } from '../../../scripts/build-wasm.ts';
import { prefixedHmacSha256 } from './hmac-sha256.ts';

const encoder = new TextEncoder();

describe('prefixedHmacSha256', () => {
  it('equals node:crypto HMAC-SHA256 for keys, prefixes and values across the block boundaries', () => {
    const out = Buffer.alloc(32);
    // Keys shorter and longer than a block; prefixes ending before, at and after one; values whose
    // padding fits in their last block or needs another; multi-byte characters and a lone surrogate.
    for (const keyLength of [0, 1, 32, 64, 65, 200]) {
      const key = randomBytes(keyLength);
      for (const prefixLength of [0, 20, 55, 56, 63, 64, 70, 130]) {
        const prefix = 'p'.repeat(prefixLength);
        const mac = prefixedHmacSha256(key, encoder.encode(prefix));
        for (const value of [
          '',
          'a',
          'x'.repeat((119 - (prefixLength % 64)) % 64),
          'y'.repeat(119),
          'é€😀'.repeat(40),
          '\ud800',
        ]) {
          mac(value, out);
          expect(out.toString('hex')).toBe(
            createHmac('sha256', key)
              .update(prefix + value)
              .digest('hex'),
          );
        }
      }
    }
  });

  it('gives each call its own answer: nothing of the previous value stays in the reused buffers', () => {
    const key = Buffer.alloc(32, 7);
    const mac = prefixedHmacSha256(key, encoder.encode('hash:{}\u0000'));
    const out = Buffer.alloc(32);
    mac('a much longer value than the next one, spanning two blocks of the message', out);
    mac('short', out);
    expect(out).toEqual(createHmac('sha256', key).update('hash:{}\u0000short').digest());
  });

  it('grows its memory for a value longer than a page, and still answers short ones after', () => {
    const key = Buffer.alloc(32, 9);
    const mac = prefixedHmacSha256(key, encoder.encode('hash:{}\u0000'));
    const out = Buffer.alloc(32);
    for (const value of ['€'.repeat(100_000), 'short']) {
      mac(value, out);
      expect(out).toEqual(createHmac('sha256', key).update(`hash:{}\u0000${value}`).digest());
    }
  });

  it('gives a value as UTF-8 bytes, anywhere in a buffer, the MAC of its text', () => {
    const key = Buffer.alloc(32, 5);
    const mac = prefixedHmacSha256(key, encoder.encode('fake:{}\u0000'));
    const [ofText, ofBytes] = [Buffer.alloc(32), Buffer.alloc(32)];
    for (const value of ['', 'a', 'Zoë 東京 😀', 'x'.repeat(119), '€'.repeat(30_000), 'short again']) {
      const data = Buffer.from(`before\t${value}\tafter`);
      mac(value, ofText);
      mac.utf8(data, 7, data.length - 6, ofBytes);
      expect(ofBytes).toEqual(ofText);
    }
  });

  it('runs the WebAssembly compiled from sha256.wat (else: npm run wasm)', async () => {
    expect(fs.readFileSync(WASM_MODULE_FILE, 'utf8')).toBe(await generateWasmModule());
  });
});

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base32Tag, canonicalJson, keyedSource, pickIndex, purposeLabel } from './keyed.ts';

describe('keyedSource', () => {
  it('is HMAC-SHA256 of purpose NUL input under the key, for short and long keys', () => {
    for (const key of [Buffer.alloc(32, 3), Buffer.alloc(100, 9)]) {
      for (const input of ['', 'abc', 'é'.repeat(500)]) {
        const expected = createHmac('sha256', key).update(`fake:{}\u0000${input}`).digest();
        expect(keyedSource(key, 'fake:{}').bytes(input)).toEqual(expected);
      }
    }
  });

  it('streams as many bytes as asked, starting with the HMAC', () => {
    const source = keyedSource(Buffer.alloc(32, 1), 'p');
    const long = source.stream('x', 100);
    expect(long.length).toBe(100);
    expect(long.subarray(0, 32)).toEqual(source.bytes('x'));
    expect(new Set(long).size).toBeGreaterThan(40);
  });
});

describe('purpose labels and pickers', () => {
  it('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    expect(purposeLabel('hash', { length: 8 })).toBe('hash:{"length":8}');
  });

  it('picks every index of a dictionary, about evenly', () => {
    const source = keyedSource(Buffer.alloc(32, 2), 'p');
    const counts = new Array(7).fill(0);
    for (let i = 0; i < 7000; i++) counts[pickIndex(source.bytes(String(i)), 7)]++;
    for (const c of counts) expect(c).toBeGreaterThan(850);
  });

  it('base32 tags use 5 bits a character', () => {
    expect(base32Tag(Buffer.from([0, 0, 0, 0, 0]), 8)).toBe('aaaaaaaa');
    expect(base32Tag(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]), 8)).toBe('77777777');
    expect(base32Tag(Buffer.from([0b00001000, 0b01000000]), 3)).toBe('bba');
  });
});

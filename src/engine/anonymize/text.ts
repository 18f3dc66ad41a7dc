// Text transformers: keyed hash, partial mask, format-preserving scramble, and the cut that makes
// every text fit its column (varchar(n) and char(n) count characters on both engines).
import type { ByteSource } from './keyed.ts';

/** `text` cut to `maxLength` characters (code points, not UTF-16 units). */
export function fitText(text: string, maxLength: number | null): string {
  if (maxLength === null || text.length <= maxLength) return text;
  const chars = Array.from(text);
  return chars.length <= maxLength ? text : chars.slice(0, maxLength).join('');
}

/** A keyed HMAC (ByteSource.bytes) in hex, `length` characters (at most 64). */
export function hashHex(mac: Buffer, length: number): string {
  // Only the bytes the length needs become hex.
  return mac.toString('hex', 0, Math.ceil(length / 2)).slice(0, length);
}

export interface MaskOptions {
  keep_start: number;
  keep_end: number;
  char: string;
}

/**
 * Every character but the first `keep_start` and last `keep_end` replaced by `char`. A value too
 * short to hide anything while keeping both ends is masked whole: a mask that reveals all is none.
 */
// A UTF-16 surrogate: where a character is two code units, so string indexes are not characters.
const SURROGATE = /[\uD800-\uDFFF]/;

export function maskText(text: string, { keep_start, keep_end, char }: MaskOptions): string {
  if (!SURROGATE.test(text)) {
    // One code unit per character (nearly every value): slice the string, no array of characters.
    if (text.length <= keep_start + keep_end) return char.repeat(text.length);
    return (
      text.slice(0, keep_start) +
      char.repeat(text.length - keep_start - keep_end) +
      text.slice(text.length - keep_end)
    );
  }
  const chars = Array.from(text);
  if (chars.length <= keep_start + keep_end) return char.repeat(chars.length);
  const hidden = chars.length - keep_start - keep_end;
  return (
    chars.slice(0, keep_start).join('') + char.repeat(hidden) + chars.slice(chars.length - keep_end).join('')
  );
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LETTER = /\p{L}/u;

/**
 * Letters stay letters (of the same case), digits stay digits, everything else (punctuation,
 * spaces, symbols) stays as it is; one keyed byte per character.
 */
export function scrambleText(source: ByteSource, input: string): string {
  const chars = Array.from(input);
  const stream = source.stream(input, chars.length);
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    const b = stream[i] as number;
    if (ch >= '0' && ch <= '9') out += String(b % 10);
    else if (LETTER.test(ch)) {
      const upper = ch !== ch.toLowerCase();
      out += (upper ? UPPER : LOWER)[b % 26];
    } else out += ch;
  }
  return out;
}

// Random tokens, digests and constant-time comparison: the small primitives the auth code shares.
import { createHmac, hash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** 32 random bytes, URL-safe: session tokens. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** One-shot: a fourth of createHash's time, and every API request hashes its key's secret. */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

export function hmac(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

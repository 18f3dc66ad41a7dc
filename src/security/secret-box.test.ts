import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.ts';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('seals and opens, never storing the plain text', () => {
    const sealed = box.seal('JBSWY3DPEHPK3PXP', 'totp');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open(sealed, 'totp')).toBe('JBSWY3DPEHPK3PXP');
    expect(box.seal('same', 'totp')).not.toBe(box.seal('same', 'totp'));
  });

  it('refuses another purpose, another key and a tampered value', () => {
    const sealed = box.seal('secret', 'totp');
    expect(() => box.open(sealed, 'connection-password')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'totp')).toThrow();
    const [v, iv, body = ''] = sealed.split('.');
    const flipped = `${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.slice(-1)}`;
    expect(() => box.open(`${v}.${iv}.${flipped}`, 'totp')).toThrow();
  });
});

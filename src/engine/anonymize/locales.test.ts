import { describe, expect, it } from 'vitest';
import { ibanValid } from './checksums.ts';
import { columnShape } from './column-type.ts';
import { compileTransformer } from './compile.ts';
import { redactText } from './detectors.ts';
import { FAKER_LOCALES } from './dictionaries.ts';
import { FAKE_KINDS, minimumLength } from './fake.ts';

describe('fake in every locale of the faker library', () => {
  it('writes a non-empty value of every kind, within the minimum length it declares, with valid IBANs', () => {
    const key = Buffer.alloc(32, 5);
    for (const locale of FAKER_LOCALES) {
      for (const kind of FAKE_KINDS) {
        const min = minimumLength(kind, locale);
        const t = compileTransformer(
          { transformer: 'fake', options: { kind, locale } },
          columnShape(`varchar(${Math.max(min, 40)})`),
          key,
        );
        for (const input of ['a', 'b', 'c']) {
          const out = t(input);
          expect(
            typeof out === 'string' && out.length > 0 && !out.includes('{{'),
            `${locale} ${kind}: ${out}`,
          ).toBe(true);
          if (kind === 'iban') expect(ibanValid(out as string), `${locale}: ${out}`).toBe(true);
        }
      }
    }
  });
});

describe('redact leaves numbers that are not personal', () => {
  it('keeps years, ranges, amounts and short ids', () => {
    for (const text of [
      'in 2019-2020',
      'total 1234.56 EUR',
      'order #123456',
      'v1.2.3',
      'on 2024-05-01 at 10:30',
    ])
      expect(redactText(text)).toBe(text);
  });
});

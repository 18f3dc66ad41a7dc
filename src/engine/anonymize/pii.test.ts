import { describe, expect, it } from 'vitest';
import { ibanValid, luhnCheckDigit, luhnValid } from './checksums.ts';
import { isIpAddress, isPhone, valueCategory } from './detectors.ts';
import { categoryByName, categoryByValues } from './pii.ts';
import { shuffleBatch, shuffleSalt } from './shuffle.ts';

describe('checksums', () => {
  it('Luhn and IBAN accept real test numbers and refuse a changed digit', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
  });
});

describe('detectors', () => {
  it('classifies single values', () => {
    expect(valueCategory('zoe@example.org')).toBe('email');
    expect(valueCategory('+33 1 42 68 53 00')).toBe('phone');
    expect(valueCategory('4111-1111-1111-1111')).toBe('card_number');
    expect(valueCategory('FR14 2004 1010 0505 0001 3M02 606')).toBe('iban');
    expect(valueCategory('192.168.1.20')).toBe('ip_address');
    expect(valueCategory('2001:db8::1')).toBe('ip_address');
    expect(valueCategory('1234567890123456')).toBeNull();
    expect(valueCategory('2024-05-01')).toBeNull();
    expect(valueCategory('hello world')).toBeNull();
    expect(isPhone('12345678')).toBe(false);
    expect(isIpAddress('999.1.1.1')).toBe(false);
  });
});

describe('PII categories', () => {
  it('by name, in several languages and spellings', () => {
    const cases: [string, string | null][] = [
      ['email', 'email'],
      ['contactEmail', 'email'],
      ['courriel', 'email'],
      ['phone_number', 'phone'],
      ['Telefonnummer', 'phone'],
      ['tel', 'phone'],
      ['first_name', 'person_name'],
      ['Nachname', 'person_name'],
      ['apellido', 'person_name'],
      ['surname', 'person_name'],
      ['street', 'address'],
      ['plz', 'address'],
      ['code_postal', 'address'],
      ['date_of_birth', 'birth_date'],
      ['dob', 'birth_date'],
      ['geburtsdatum', 'birth_date'],
      ['ssn', 'national_id'],
      ['passport', 'national_id'],
      ['iban', 'iban'],
      ['card_number', 'card_number'],
      ['last_login_ip', 'ip_address'],
      ['notes', 'free_text'],
      ['film_id', null],
      ['rental_rate', null],
      ['description_id', null],
      ['description', null],
    ];
    for (const [column, category] of cases) expect(categoryByName(column), column).toBe(category);
    expect(categoryByName('name', 'customer')).toBe('person_name');
    expect(categoryByName('Name', 'StaffMembers')).toBe('person_name');
    expect(categoryByName('name', 'category')).toBeNull();
    expect(categoryByName('nombre', 'clientes')).toBe('person_name');
  });

  it('by values: a detector on half the sample, or free text holding personal data', () => {
    expect(categoryByValues(['a@b.org', 'c@d.org', null, 'x'])).toBe('email');
    expect(categoryByValues(['a@b.org', 'x', 'y', 'z'])).toBeNull();
    expect(categoryByValues(['Customer asked to call back on +49 151 2345 6789 tomorrow', 'ok'])).toBe(
      'free_text',
    );
    expect(categoryByValues([1, 2, 3])).toBeNull();
  });
});

describe('shuffleBatch', () => {
  it('is a keyed permutation: same key same result, every value kept, most rows moved', () => {
    const salt = shuffleSalt(Buffer.alloc(32, 1));
    const keys = Array.from({ length: 100 }, (_, i) => String(i));
    const values = keys.map((k) => `v${k}`);
    const out = shuffleBatch(salt, values, keys);
    expect(out).toEqual(shuffleBatch(salt, values, keys));
    expect([...out].sort()).toEqual([...values].sort());
    expect(out.filter((v, i) => v === values[i]).length).toBeLessThan(10);
    expect(shuffleBatch(shuffleSalt(Buffer.alloc(32, 2)), values, keys)).not.toEqual(out);
  });
});

describe('luhnCheckDigit', () => {
  it('completes any body into a number passing Luhn, and only with that digit', () => {
    for (const body of ['411111111111111', '7992739871', '0', '12345678901234', '49927398716'.slice(0, 10)]) {
      const digit = luhnCheckDigit(body);
      expect(luhnValid(body + digit)).toBe(true);
      expect(luhnValid(body + ((Number(digit) + 1) % 10))).toBe(false);
    }
    expect(luhnCheckDigit('7992739871')).toBe('3');
  });
});

// The `fake` transformer: realistic values built from 32 keyed (or random) bytes and the locale's
// dictionaries. E-mails carry a 65-bit keyed tag in their local part on the reserved domain
// example.net, so distinct inputs give distinct addresses (a collision among a billion values is
// about 1 in 10^7, and a `unique` run still checks); card numbers pass Luhn and IBANs their mod-97.
import { ibanCheckDigits, luhnCheckDigit } from './checksums.ts';
import { type Dictionary, dictionary, IBAN_BBAN_DIGITS } from './dictionaries.ts';
import { base32Tag, fillDigits, pick } from './keyed.ts';

export const FAKE_KINDS = [
  'first_name',
  'last_name',
  'full_name',
  'email',
  'phone',
  'username',
  'street_address',
  'city',
  'postal_code',
  'country',
  'company',
  'iban',
  'credit_card',
  'ipv4',
  'uuid',
] as const;
export type FakeKind = (typeof FAKE_KINDS)[number];

export const EMAIL_DOMAIN = 'example.net';
const EMAIL_TAG = 13;
/** The shortest e-mail this writes: the tag alone on the domain. */
export const EMAIL_MIN_LENGTH = EMAIL_TAG + 1 + EMAIL_DOMAIN.length;

/** The characters a kind needs at least: a shorter column cannot take its values whole. */
export function minimumLength(kind: FakeKind, locale = 'en'): number {
  switch (kind) {
    case 'email':
      return EMAIL_MIN_LENGTH;
    case 'iban': {
      const country = dictionary(locale).ibanCountry;
      return 4 + (IBAN_BBAN_DIGITS[country] as number);
    }
    case 'credit_card':
      return 16;
    case 'ipv4':
      return 15;
    case 'uuid':
      return 36;
    case 'phone':
      return Math.min(...dictionary(locale).phonePatterns.map((p) => p.length));
    default:
      return 1;
  }
}

/** Kinds whose values stay distinct for distinct inputs (a keyed tag of 60 bits or more). */
export const DISTINCT_FAKE_KINDS: ReadonlySet<FakeKind> = new Set(['email', 'iban', 'uuid']);

// The names come from a finite dictionary: each is folded once, not once per value (a normalize and
// two regexes per e-mail were a visible part of its cost).
const folded = new Map<string, string>();

/** Lowercase ASCII letters of a name, for e-mails and user names ("Zoë" → "zoe"). */
function asciiWord(name: string): string {
  let word = folded.get(name);
  if (word === undefined) {
    word = foldToAscii(name);
    folded.set(name, word);
  }
  return word;
}

function foldToAscii(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

function replaceLetters(pattern: string, bytes: Buffer): string {
  let i = 0;
  return pattern.replace(/\?/g, () => String.fromCharCode(65 + ((bytes[i++ % bytes.length] as number) % 26)));
}

function email(d: Dictionary, b: Buffer, maxLength: number | null): string {
  const tag = base32Tag(b, EMAIL_TAG, 12);
  const first = asciiWord(pick(d.firstNames, b, 0));
  const last = asciiWord(pick(d.lastNames, b, 6));
  const named = first && last ? `${first}.${last}.${tag}@${EMAIL_DOMAIN}` : `${tag}@${EMAIL_DOMAIN}`;
  return maxLength === null || named.length <= maxLength ? named : `${tag}@${EMAIL_DOMAIN}`;
}

function phone(d: Dictionary, b: Buffer, maxLength: number | null): string {
  const fitting = maxLength === null ? d.phonePatterns : d.phonePatterns.filter((p) => p.length <= maxLength);
  return fillDigits(pick(fitting.length > 0 ? fitting : d.phonePatterns, b, 0), b.subarray(6));
}

function iban(d: Dictionary, b: Buffer): string {
  const bban = fillDigits('#'.repeat(IBAN_BBAN_DIGITS[d.ibanCountry] as number), b);
  return `${d.ibanCountry}${ibanCheckDigits(d.ibanCountry, bban)}${bban}`;
}

function uuid(b: Buffer): string {
  const h = Buffer.from(b.subarray(0, 16));
  h[6] = ((h[6] as number) & 0x0f) | 0x40;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** A fake value of `kind` from the bytes of one input; `maxLength` picks forms that fit when there are several. */
export function fakeValue(kind: FakeKind, locale: string, b: Buffer, maxLength: number | null): string {
  const d = dictionary(locale);
  switch (kind) {
    case 'first_name':
      return pick(d.firstNames, b, 0);
    case 'last_name':
      return pick(d.lastNames, b, 6);
    case 'full_name':
      return `${pick(d.firstNames, b, 0)} ${pick(d.lastNames, b, 6)}`;
    case 'email':
      return email(d, b, maxLength);
    case 'phone':
      return phone(d, b, maxLength);
    case 'username':
      return `${asciiWord(pick(d.firstNames, b, 0)) || 'user'}.${asciiWord(pick(d.lastNames, b, 6)) || 'x'}${(b[12] as number) % 100}`;
    case 'street_address': {
      const street = pick(d.streetNames, b, 0);
      const number = fillDigits(pick(d.buildingNumbers, b, 6), b.subarray(12));
      return d.streetFirst ? `${street} ${number}` : `${number} ${street}`;
    }
    case 'city':
      return pick(d.cities, b, 0);
    case 'postal_code':
      return replaceLetters(fillDigits(pick(d.postcodes, b, 0), b.subarray(6)), b.subarray(20));
    case 'country':
      return pick(d.countries, b, 0);
    case 'company':
      return `${pick(d.lastNames, b, 6)} ${pick(d.companySuffixes, b, 12)}`;
    case 'iban':
      return iban(d, b);
    case 'credit_card': {
      const body = `4${fillDigits('#'.repeat(14), b)}`;
      return body + luhnCheckDigit(body);
    }
    case 'ipv4':
      return `${1 + ((b[0] as number) % 223)}.${b[1]}.${b[2]}.${1 + ((b[3] as number) % 254)}`;
    case 'uuid':
      return uuid(b);
  }
}

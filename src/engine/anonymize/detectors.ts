// Recognising personal values: in a sampled column (the PII scan) and inside free text (`redact`).
// Every detector that can check more than a shape does (cards by Luhn, IBANs by their check digits),
// so order numbers and invoice ids are not taken for cards.
import { ibanValid, luhnValid } from './checksums.ts';

export type ValueCategory = 'email' | 'phone' | 'card_number' | 'iban' | 'ip_address';

const EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
const PHONE = /^\+?[\d ().-]{7,20}$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function isEmail(value: string): boolean {
  return value.length <= 320 && EMAIL.test(value);
}

/** 8 to 15 digits (E.164, with the area code) with the separators people write, and not a date or a decimal number. */
export function isPhone(value: string): boolean {
  if (!PHONE.test(value)) return false;
  const digits = value.replace(/\D/g, '');
  if (digits.length < 8 || digits.length > 15) return false;
  // A bare number without a leading + or separators is an id, not a phone.
  if (/^\d+$/.test(value)) return false;
  // Dates (2024-05-01, 01.02.2024), year ranges (2019-2020) and decimals are not phones.
  if (/^\d{1,4}([-./])\d{1,2}\1\d{1,4}$/.test(value) || /^\d+\.\d+$/.test(value)) return false;
  if (/^\d{4}\s?[-–]\s?\d{4}$/.test(value)) return false;
  return true;
}

/** 13 to 19 digits, optionally grouped by spaces or dashes, passing Luhn. */
export function isCardNumber(value: string): boolean {
  if (!/^\d[\d -]{11,22}\d$/.test(value)) return false;
  const digits = value.replace(/[ -]/g, '');
  return digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
}

export function isIban(value: string): boolean {
  return ibanValid(value);
}

export function isIpAddress(value: string): boolean {
  if (IPV4.test(value)) return true;
  if (!value.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(value)) return false;
  // The WHATWG URL parser knows IPv6 literals exactly; no I/O involved.
  return URL.canParse(`http://[${value}]/`);
}

/** The category of a single value, or null. */
export function valueCategory(value: string): ValueCategory | null {
  const v = value.trim();
  if (v.length === 0 || v.length > 320) return null;
  if (isEmail(v)) return 'email';
  if (isIban(v)) return 'iban';
  if (isCardNumber(v)) return 'card_number';
  if (isIpAddress(v)) return 'ip_address';
  if (isPhone(v)) return 'phone';
  return null;
}

const EMBEDDED_EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const EMBEDDED_IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g;
const EMBEDDED_CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
const EMBEDDED_PHONE = /(?:\+|\b)\d[\d ().-]{5,18}\d\b/g;

/** Replaces the e-mails, IBANs, card numbers and phone numbers inside a free text. */
export function redactText(text: string): string {
  return text
    .replace(EMBEDDED_EMAIL, '[email]')
    .replace(EMBEDDED_IBAN, (m) => (ibanValid(m) ? '[iban]' : m))
    .replace(EMBEDDED_CARD, (m) => (luhnValid(m.replace(/[ -]/g, '')) ? '[card]' : m))
    .replace(EMBEDDED_PHONE, (m) => (isPhone(m) ? '[phone]' : m));
}

/** Whether a free text contains any of those (the PII scan's `free_text`). */
export function containsPersonalData(text: string): boolean {
  return redactText(text) !== text;
}

// Check digits of the numbers the fakers build and the detectors recognise: Luhn (payment cards)
// and ISO 13616 mod-97 (IBAN). A fake card or IBAN passes the validation of the application that
// reads it, and a detector does not mistake any 16 digits for a card.

/** True when the digit string passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The Luhn check digit to append to `body`: the body's digits doubled from its last one. */
export function luhnCheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = body.charCodeAt(body.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** The remainder mod 97 of a long decimal string, in chunks that stay within a double's integers. */
function mod97(numeric: string): number {
  let rest = 0;
  for (let i = 0; i < numeric.length; i += 7) rest = Number(`${rest}${numeric.slice(i, i + 7)}`) % 97;
  return rest;
}

/** Letters as 10–35, as ISO 13616 rearranges them. */
function ibanDigits(text: string): string {
  let out = '';
  for (const ch of text) out += /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch;
  return out;
}

/** The two IBAN check digits for a country code and a BBAN. */
export function ibanCheckDigits(country: string, bban: string): string {
  const rest = mod97(ibanDigits(`${bban}${country}00`));
  return String(98 - rest).padStart(2, '0');
}

/** True when `iban` (spaces allowed) is well formed and its check digits are right. */
export function ibanValid(iban: string): boolean {
  const compact = iban.replace(/ /g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(compact)) return false;
  return mod97(ibanDigits(compact.slice(4) + compact.slice(0, 4))) === 1;
}

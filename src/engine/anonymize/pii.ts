// What makes a column look personal: its name (patterns in English, German, French, Spanish,
// Italian, Dutch and Portuguese) or the values sampled from it (detectors.ts). The PII scan reports
// the first category found, by name before values: a name states intent, values only suggest it.
import { containsPersonalData, type ValueCategory, valueCategory } from './detectors.ts';

export const PII_CATEGORIES = [
  'email',
  'phone',
  'person_name',
  'address',
  'birth_date',
  'national_id',
  'card_number',
  'iban',
  'ip_address',
  'free_text',
] as const;
export type PiiCategory = (typeof PII_CATEGORIES)[number];

const NATIONAL_ID =
  /(^|_)(ssn|social_security\w*|national_?id|nin|passport|pass_?nr|reisepass|personalausweis|steuer_?id|tax_?id|nif|nie|dni|nir|insee|codice_fiscale|bsn|cpf|id_?card)(_|$)/;

/** Tested against the column name in lower case with `-`, spaces and camelCase humps as `_`. */
const NAME_PATTERNS: [PiiCategory, RegExp][] = [
  ['email', /(^|_)(e_?mail|mail|courriel|correo|posta_elettronica)(_|$)|email/],
  [
    'phone',
    /(^|_)(phone|tel|telefon|telephone|t[eé]l[eé]phone|mobile|mobil|cell|fax|handy|telefono|tel[eé]fono|portable|gsm)(_?(nr|no|number|nummer|numero))?(_|$)|phone/,
  ],
  ['iban', /(^|_)(iban|bic|swift|bank_?account|account_?number|konto(nummer)?|rekening)(_|$)/],
  [
    'card_number',
    /(^|_)(card|credit_?card|cc|pan|kreditkarte|carte|tarjeta)(_?(no|nr|num|number|numero))?(_|$)/,
  ],
  [
    'birth_date',
    /(^|_)(birth|birthday|born|dob|date_of_birth|birth_?date|geburt\w*|naissance|nacimiento|nascita|geboorte\w*)(_|$)/,
  ],
  ['national_id', NATIONAL_ID],
  ['ip_address', /(^|_)(ip|ip_?addr(ess)?|ipv4|ipv6|remote_addr|client_ip)(_|$)/],
  [
    'address',
    /(^|_)(address|addr|street|str|strasse|straße|adresse|rue|calle|via|straat|zip|zip_?code|postal|post_?code|postcode|plz|code_postal|cp|city|town|ort|stadt|ville|ciudad|citt[aà])(_|$)|address/,
  ],
  [
    'person_name',
    /(^|_)(first_?name|last_?name|full_?name|given_?name|family_?name|surname|middle_?name|maiden_?name|vorname|nachname|familienname|prenom|prénom|apellidos?|cognome|achternaam|voornaam|sobrenome|contact|owner)(_|$)/,
  ],
  [
    'free_text',
    /(^|_)(note|notes|comment|comments|remark|remarks|bio|message|body|bemerkung|kommentar|commentaire|comentario|nota|opmerking)(_|$)/,
  ],
];

function normalizedName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** A bare `name` column names a person only in a table of people (`customer.name`, not `category.name`). */
const BARE_NAME = /^(name|nom|nombre|nome|naam)$/;
const PEOPLE_TABLE =
  /(^|_)(customers?|users?|persons?|people|employees?|staff|contacts?|members?|clients?|patients?|authors?|actors?|students?|teachers?|accounts?|owners?|guests?|kunden?|mitarbeiter|personen|clientes?|utilisateurs?)(_|$)/;

/**
 * The category a column's name suggests, or null; `table` (its name) decides whether a bare `name`
 * is a person's. Descriptions and titles are left to the value sample: most describe things.
 */
export function categoryByName(column: string, table = ''): PiiCategory | null {
  const name = normalizedName(column);
  if (BARE_NAME.test(name)) return PEOPLE_TABLE.test(normalizedName(table)) ? 'person_name' : null;
  // A reference, counter, kind or moment named after a personal field (`address_id`, `email_count`)
  // holds no personal data itself; identity numbers (`tax_id`, `national_id`) do.
  if (/_(id|ids|key|count|type|kind|flag|status|verified|at|on)$/.test(name))
    return NATIONAL_ID.test(name) ? 'national_id' : null;
  for (const [category, pattern] of NAME_PATTERNS) if (pattern.test(name)) return category;
  return null;
}

/** Share of non-empty sampled values that must match one category for the column to be reported. */
export const VALUE_SHARE = 0.5;

/**
 * The category that the sampled values of a text column show: one detector matching at least half
 * of the non-empty values, else free text when at least one longer value holds personal data.
 */
export function categoryByValues(values: readonly unknown[]): PiiCategory | null {
  const texts = values.filter((v): v is string => typeof v === 'string' && v.trim().length > 0);
  if (texts.length === 0) return null;
  const counts = new Map<ValueCategory, number>();
  for (const text of texts) {
    const category = valueCategory(text);
    if (category) counts.set(category, (counts.get(category) ?? 0) + 1);
  }
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  if (best && best[1] / texts.length >= VALUE_SHARE) return best[0];
  if (texts.some((t) => t.length > 20 && containsPersonalData(t))) return 'free_text';
  return null;
}

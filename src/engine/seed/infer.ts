// Inference: the generator of a column the definition leaves out, from its name and type. The rule
// table (README "Seed scenarios"), first match wins; names are compared in lower case with
// camelCase humps, spaces and dashes as `_`, and in English, German, French, Spanish, Italian,
// Portuguese and Dutch:
//
//   | column                                  | generator                                        |
//   |-----------------------------------------|--------------------------------------------------|
//   | generated column                        | left to the database                             |
//   | identity/serial/auto_increment, not referenced | left to the database                      |
//   | identity/serial/auto_increment, referenced | service key above the current maximum         |
//   | a foreign key's column                  | reference (uniform)                              |
//   | enum type, or CHECK … IN (…)            | choice of the labels                             |
//   | text: e-mail, courriel, correo          | e-mail on example.com                            |
//   | text: first name, vorname, prénom, nome | first name (locale)                              |
//   | text: last name, surname, nachname, …   | last name (locale)                               |
//   | text: name, full name, contact          | full name (locale); a bare `name` outside a      |
//   |                                         | table of people: a few words                     |
//   | text: phone, tel, telefon, mobile, fax  | phone number (locale pattern)                    |
//   | text: city, town, stadt, ville, ciudad  | the row's city (row-persona.ts)                  |
//   | text: country, land, pays, país         | the row's country: name, alpha-3 or alpha-2;     |
//   |                                         | each country once in a unique column             |
//   | text: state, province, region, district | a state of the row's country (its city without)  |
//   | text: company, firma, société, empresa  | company name (locale)                            |
//   | text: url, website, homepage, link      | https URL on example.com                         |
//   | text: address, street, strasse, rue     | street address (locale)                          |
//   | text: zip, postal code, plz             | postal code (locale pattern)                     |
//   | text: username, login, user             | user name                                        |
//   | text: title, subject, label             | a few words                                      |
//   | text: description, comment, note, bio   | a sentence                                       |
//   | text: code, sku, reference, ref         | letters and digits                               |
//   | other text                              | words within the column's length                 |
//   | uuid                                    | UUID v4 from the hash                            |
//   | boolean                                 | true or false                                    |
//   | timestamp: birth…                       | 1940–2005; other timestamps 2020–2025            |
//   | date: birth…                            | 1940–2005; other dates 2020–2025                 |
//   | integer: age                            | 18–90                                            |
//   | integer: year                           | 1950–2030                                        |
//   | integer: quantity, qty, count           | 1–20                                             |
//   | integer, decimal, float                 | 1–1000 within the type's range and the CHECKs    |
//   | time                                    | a time of day                                    |
//   | json                                    | a small object                                   |
//   | nullable column of another type         | null                                             |
//   | NOT NULL with a default, another type   | left to the database                             |
//
// Pure.
import type { SeedColumn } from './column-kind.ts';
import type { FakeValue, Resolved } from './resolved.ts';

export function normalizedName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

const TEXT_RULES: [RegExp, FakeValue][] = [
  [/(^|_)(e_?mail|mail|courriel|correo|posta_elettronica)(_|$)|email/, 'email'],
  [/(^|_)(first_?name|given_?name|forename|vorname|pr[eé]nom|nombre|nome|voornaam)(_|$)/, 'first_name'],
  [
    /(^|_)(last_?name|surname|family_?name|nachname|familienname|nom_de_famille|apellidos?|cognome|sobrenome|achternaam)(_|$)/,
    'last_name',
  ],
  [
    /(^|_)(phone|tel|telefon|telephone|t[eé]l[eé]phone|mobile|mobil|cell|fax|handy|telefono|tel[eé]fono|gsm)(_?(nr|no|number|nummer|numero))?(_|$)|phone/,
    'phone',
  ],
  [/(^|_)(city|town|ort|stadt|ville|ciudad|citt[aà]|cidade|stad|plaats)(_|$)/, 'city'],
  [/(^|_)(country|land|pays|pa[ií]s|paese|nation)(_|$)/, 'country'],
  [
    /(^|_)(state|province|provinz|region|r[eé]gion|county|district|bundesland|kanton|canton|provincia|regione|estado|departement|d[eé]partement)(_|$)/,
    'state',
  ],
  [
    /(^|_)(company|firma|unternehmen|soci[eé]t[eé]|entreprise|empresa|azienda|bedrijf|organisation|organization|employer)(_|$)/,
    'company',
  ],
  [/(^|_)(url|uri|website|web_?site|homepage|link|href)(_|$)/, 'url'],
  [
    /(^|_)(address|addr|address_?line\d*|street|strasse|straße|adresse|rue|calle|via|straat|rua)(_|$)|address/,
    'street_address',
  ],
  [/(^|_)(zip|zip_?code|postal|postal_?code|post_?code|postcode|plz|code_postal|cp|cep)(_|$)/, 'postal_code'],
  [/(^|_)(user_?name|login|benutzer(name)?|utilisateur|usuario|handle|nick(name)?)(_|$)/, 'username'],
  [
    /(^|_)(full_?name|contact(_?name)?|customer_?name|person|owner|author|composer|name|nom|naam|nombre_completo)(_|$)/,
    'full_name',
  ],
  [/(^|_)(title|titel|titre|t[ií]tulo|subject|label|headline|caption)(_|$)/, 'title'],
  [
    /(^|_)(description|desc|comment|comments|note|notes|remark|bio|message|body|text|content|summary|bemerkung|beschreibung|kommentar|commentaire|comentario|nota|opmerking)(_|$)/,
    'sentence',
  ],
  [/(^|_)(code|sku|ref|reference|isbn|slug|token|key)(_|$)/, 'code'],
];

const BIRTH =
  /(^|_)(birth|birthday|born|dob|date_of_birth|birth_?date|geburt\w*|naissance|nacimiento|nascita|geboorte\w*)(_|$)/;
const YEAR_2020 = Date.UTC(2020, 0, 1);
const YEAR_2026 = Date.UTC(2026, 0, 1) - 1000;
const YEAR_1940 = Date.UTC(1940, 0, 1);
const YEAR_2006 = Date.UTC(2006, 0, 1) - 1000;

/**
 * A default range narrowed to the column's type and CHECK bounds; the bounds alone when the
 * default range lies outside them (a partition's CHECK on its dates, a score CHECK'd above 1000).
 */
function within(seed: SeedColumn, min: number, max: number, step: number): [number, number] {
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  if (seed.shape.min !== null) low = Number(seed.shape.min);
  if (seed.shape.max !== null) high = Number(seed.shape.max);
  if (seed.shape.precision !== null && seed.shape.scale !== null) {
    const top = 10 ** (seed.shape.precision - seed.shape.scale) - 10 ** -seed.shape.scale;
    [low, high] = [Math.max(low, -top), Math.min(high, top)];
  }
  const { lower, upper } = seed.limits;
  if (lower) low = Math.max(low, lower.inclusive ? lower.value : lower.value + step);
  if (upper) high = Math.min(high, upper.inclusive ? upper.value : upper.value - step);
  const from = Math.max(min, low);
  const to = Math.min(max, high);
  if (from <= to) return [from, to];
  const a = Number.isFinite(low) ? low : Math.min(high, min);
  const b = Number.isFinite(high) ? high : Math.max(low, max);
  return [a, Math.max(a, Math.min(b, a + (max - min)))];
}

/** A column called just "name": a person's only in a table of people. */
const BARE_NAME = /^(name|nom|naam|nombre|nome)$/;
const PEOPLE =
  /(^|_)(customers?|clients?|users?|persons?|people|employees?|staff|members?|contacts?|authors?|artists?|actors?|owners?|patients?|students?|teachers?|drivers?|passengers?|guests?|subscribers?|composers?|managers?|agents?|players?|kunden?|mitarbeiter|benutzer|personnes?|utilisateurs?|usuarios?)(_|$)/;

/**
 * The inferred generator, narrowed to the column's type and CHECKs, and the rule that chose it;
 * `table` is the table's name (a bare `name` column is a person's in a table of people only).
 */
export function inferGenerator(seed: SeedColumn, table = ''): { generator: Resolved; rule: string } | null {
  const found = inferByRule(seed, table);
  if (!found) return null;
  const g = found.generator;
  if (g.kind === 'int') {
    [g.min, g.max] = within(seed, g.min, g.max, 1);
    [g.min, g.max] = [Math.ceil(g.min), Math.floor(g.max)];
  } else if (g.kind === 'float') {
    const step = g.precision === null ? 1e-9 : 10 ** -g.precision;
    [g.min, g.max] = within(seed, g.min, g.max, step);
  } else if (g.kind === 'date' || g.kind === 'timestamp')
    [g.from, g.to] = within(seed, g.from, g.to, g.kind === 'date' ? 86_400_000 : 1000);
  return found;
}

function inferByRule(seed: SeedColumn, table: string): { generator: Resolved; rule: string } | null {
  const name = normalizedName(seed.column.name);
  const allowed = seed.limits.allowed;
  if (allowed && allowed.length > 0)
    return { generator: { kind: 'choice', values: allowed, weights: null }, rule: 'check_in_list' };
  switch (seed.family) {
    case 'enum':
      return { generator: { kind: 'choice', values: seed.enumValues ?? [], weights: null }, rule: 'enum' };
    case 'text': {
      const found = TEXT_RULES.find(([pattern]) => pattern.test(name));
      if (found?.[1] === 'full_name' && BARE_NAME.test(name) && !PEOPLE.test(normalizedName(table)))
        return { generator: { kind: 'fake', fake: 'title' }, rule: 'name:title' };
      return found
        ? { generator: { kind: 'fake', fake: found[1] }, rule: `name:${found[1]}` }
        : { generator: { kind: 'fake', fake: 'word' }, rule: 'text' };
    }
    case 'uuid':
      return { generator: { kind: 'fake', fake: 'uuid' }, rule: 'uuid' };
    case 'boolean':
      return { generator: { kind: 'fake', fake: 'boolean' }, rule: 'boolean' };
    case 'json':
      return { generator: { kind: 'fake', fake: 'json' }, rule: 'json' };
    case 'time':
      return { generator: { kind: 'time' }, rule: 'time' };
    case 'timestamp':
    case 'date': {
      const birth = BIRTH.test(name);
      const [from, to] = birth ? [YEAR_1940, YEAR_2006] : [YEAR_2020, YEAR_2026];
      return {
        generator: { kind: seed.family, from, to },
        rule: birth ? `${seed.family}:birth` : seed.family,
      };
    }
    case 'integer': {
      if (/(^|_)(age|alter|[aâ]ge|edad|et[aà])(_|$)/.test(name))
        return { generator: { kind: 'int', min: 18, max: 90 }, rule: 'integer:age' };
      if (/(^|_)(year|jahr|ann[eé]e|a[nñ]o|anno)(_|$)/.test(name))
        return { generator: { kind: 'int', min: 1950, max: 2030 }, rule: 'integer:year' };
      if (/(^|_)(quantity|qty|count|menge|anzahl|quantit[eé]|cantidad)(_|$)/.test(name))
        return { generator: { kind: 'int', min: 1, max: 20 }, rule: 'integer:quantity' };
      return { generator: { kind: 'int', min: 1, max: 1000 }, rule: 'integer' };
    }
    case 'numeric':
      return {
        generator: { kind: 'float', min: 1, max: 1000, precision: seed.shape.scale ?? 2 },
        rule: 'decimal',
      };
    case 'float':
      return { generator: { kind: 'float', min: 0, max: 1000, precision: null }, rule: 'float' };
    default:
      return null;
  }
}

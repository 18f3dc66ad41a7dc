// The lists a seed draws its realistic values from, built once per locale and kept for the process:
// every first name the locale has (its generic, female and male lists together, so ten rows do not
// draw from ten names), its last names, each with an ASCII form for e-mails and user names
// (transliterated once here, never per value); every ISO 3166 country with its alpha-2 and alpha-3
// codes and its names in the locale's language (i18n-iso-countries); the cities of the locale's own
// country and of the other countries whose cities the faker library lists, so that a row's city
// and country agree; and the anonymization engine's dictionary for streets, postcodes, phones and
// company suffixes. Values are picked from these by a keyed hash (hash.ts): nothing here runs per
// value.

import { createRequire } from 'node:module';
import type { LocaleDefinition } from '@faker-js/faker';
import { type Dictionary, dictionary } from '../anonymize/dictionaries.ts';
import { fakerLibrary } from './faker-library.ts';

const require = createRequire(import.meta.url);

export interface NamePool {
  names: readonly string[];
  /** Each name in lower-case ASCII letters and digits (`Jürgen` → `jurgen`, `Алексей` → `aleksey`). */
  ascii: readonly string[];
}

export interface Country {
  alpha2: string;
  alpha3: string;
  /** The country's names in the locale's language, the official one first. */
  names: readonly string[];
}

export interface CountryCities {
  country: Country;
  cities: readonly string[];
  /** Its states, provinces or regions, as the faker library lists them (none for some). */
  states: readonly string[];
}

export interface LocalePools {
  firstNames: NamePool;
  lastNames: NamePool;
  /** Every ISO 3166-1 country, by alpha-2 code. */
  countries: readonly Country[];
  /** The locale's own country and its cities, when the locale has both. */
  home: CountryCities | null;
  /** Other countries and their cities, as the faker library's locales list them. */
  world: readonly CountryCities[];
  /** English adjectives and nouns, and lorem words (titles, sentences, URLs, JSON keys). */
  words: readonly string[];
  lorem: readonly string[];
  dictionary: Dictionary;
  /** No entry of any list holds a character the row format escapes (backslash, tab, newline). */
  plain: boolean;
}

/**
 * The country of each faker locale that lists its own cities (`ar` lists the cities of several
 * countries and is left out). A language alone stands for the country where it is the first one.
 */
// biome-ignore format: a table, kept compact
const LOCALE_COUNTRY: Readonly<Record<string, string>> = {
  af_ZA: 'ZA', az: 'AZ', bn_BD: 'BD', cs_CZ: 'CZ', da: 'DK', de: 'DE', de_AT: 'AT', de_CH: 'CH',
  dv: 'MV', el: 'GR', en: 'US', en_AU_ocker: 'AU', en_CA: 'CA', en_GH: 'GH', en_HK: 'HK', en_IN: 'IN',
  en_NG: 'NG', en_NP: 'NP', en_ZA: 'ZA', es: 'ES', es_MX: 'MX', fa: 'IR', fi: 'FI', fr: 'FR',
  fr_CH: 'CH', fr_LU: 'LU', fr_SN: 'SN', he: 'IL', hr: 'HR', hu: 'HU', id_ID: 'ID', it: 'IT',
  ka_GE: 'GE', ko: 'KR', lv: 'LV', mk: 'MK', nb_NO: 'NO', ne: 'NP', pl: 'PL', pt_PT: 'PT', ro: 'RO',
  ro_MD: 'MD', ru: 'RU', sk: 'SK', sl_SI: 'SI', sr_RS_latin: 'RS', th: 'TH', tr: 'TR', uk: 'UA',
  ur: 'PK', uz_UZ_latin: 'UZ', vi: 'VN', zh_CN: 'CN', zu_ZA: 'ZA',
};

type Transliterate = (text: string) => string;
type IsoCountries = typeof import('i18n-iso-countries');

let transliterate: Transliterate | undefined;
let isoCountries: IsoCountries | undefined;

/** `text` in lower-case ASCII letters and digits; empty when nothing of it has an ASCII form. */
export function asciiForm(text: string): string {
  transliterate ??= (require('transliteration') as { transliterate: Transliterate }).transliterate;
  return transliterate(text)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

const unique = (list: readonly string[]) => [...new Set(list)];

function plainStrings(node: unknown): string[] {
  const list = typeof node === 'string' ? [node] : node;
  // Trimmed: a few entries of the faker library's lists end in a space.
  return Array.isArray(list)
    ? list
        .filter((v): v is string => typeof v === 'string' && v.trim() !== '' && !v.includes('{{'))
        .map((v) => v.trim())
    : [];
}

/** A person-name entry of a locale: its generic, female and male lists together. */
function personNames(definition: LocaleDefinition | undefined, field: 'first_name' | 'last_name'): string[] {
  const node: unknown = (definition?.person as Record<string, unknown> | undefined)?.[field];
  if (Array.isArray(node)) return plainStrings(node);
  if (node === null || typeof node !== 'object') return [];
  const parts = node as Record<string, unknown>;
  return unique(['generic', 'female', 'male'].flatMap((k) => plainStrings(parts[k])));
}

/** A locale's own cities; a few (Hebrew abbreviations) carry quotes and backslashes, and are left out. */
function cityNames(definition: LocaleDefinition | undefined): string[] {
  const listed = plainStrings((definition?.location as Record<string, unknown> | undefined)?.city_name);
  return unique(listed.filter((c) => !/[\\"]/.test(c)));
}

function stateNames(definition: LocaleDefinition | undefined): string[] {
  return unique(plainStrings((definition?.location as Record<string, unknown> | undefined)?.state));
}

/** The locale, its language, English: where a list missing from the locale is looked up. */
const chainOf = (locale: string) => [...new Set([locale, locale.split('_')[0] as string, 'en'])];

function namePool(locale: string, field: 'first_name' | 'last_name'): NamePool {
  const all = fakerLibrary().allLocales as Record<string, LocaleDefinition>;
  let names: string[] = [];
  for (const step of chainOf(locale)) {
    names = personNames(all[step], field);
    if (names.length > 0) break;
  }
  if (names.length === 0) names = [field === 'first_name' ? 'Alex' : 'Smith'];
  return { names, ascii: names.map((n) => asciiForm(n) || 'user') };
}

function countryList(locale: string): Country[] {
  if (!isoCountries) {
    isoCountries = require('i18n-iso-countries/index.js') as IsoCountries;
    isoCountries.registerLocale(require('i18n-iso-countries/langs/en.json'));
  }
  const iso = isoCountries;
  const wanted = locale.split('_')[0] as string;
  let language = 'en';
  if (iso.getSupportedLanguages().includes(wanted)) {
    if (!iso.langs().includes(wanted)) iso.registerLocale(require(`i18n-iso-countries/langs/${wanted}.json`));
    language = wanted;
  }
  return Object.keys(iso.getAlpha2Codes())
    .sort()
    .flatMap((alpha2) => {
      const alpha3 = iso.alpha2ToAlpha3(alpha2);
      const names =
        iso.getName(alpha2, language, { select: 'all' }) ?? iso.getName(alpha2, 'en', { select: 'all' });
      return alpha3 && names && names.length > 0 ? [{ alpha2, alpha3, names }] : [];
    });
}

function placesOf(locale: string, countries: readonly Country[]): Pick<LocalePools, 'home' | 'world'> {
  const all = fakerLibrary().allLocales as Record<string, LocaleDefinition>;
  const byCode = new Map(countries.map((c) => [c.alpha2, c]));
  const cities = new Map<string, string[]>();
  const states = new Map<string, string[]>();
  for (const [source, code] of Object.entries(LOCALE_COUNTRY)) {
    const listed = cityNames(all[source]);
    if (listed.length === 0 || !byCode.has(code)) continue;
    cities.set(code, unique([...(cities.get(code) ?? []), ...listed]));
    states.set(code, unique([...(states.get(code) ?? []), ...stateNames(all[source])]));
  }
  // The locale and its language only: English's cities are not the home of a locale without any.
  const homeCode = [locale, locale.split('_')[0] as string]
    .map((step) => LOCALE_COUNTRY[step])
    .find((code) => code !== undefined && cities.has(code));
  const entry = (code: string): CountryCities => ({
    country: byCode.get(code)!,
    cities: cities.get(code)!,
    states: states.get(code) ?? [],
  });
  return {
    home: homeCode ? entry(homeCode) : null,
    world: [...cities.keys()]
      .filter((code) => code !== homeCode)
      .sort()
      .map(entry),
  };
}

function englishWords(): Pick<LocalePools, 'words' | 'lorem'> {
  const en = fakerLibrary().allLocales.en as { lorem?: { word?: unknown }; word?: Record<string, unknown> };
  const lorem = plainStrings(en.lorem?.word);
  const words = ['adjective', 'noun'].flatMap((k) => plainStrings(en.word?.[k]));
  const fallback = ['alpha', 'beta', 'gamma', 'delta'];
  return {
    lorem: lorem.length > 0 ? lorem : fallback,
    words: words.length > 0 ? words : lorem.length > 0 ? lorem : fallback,
  };
}

const cache = new Map<string, LocalePools>();

export function localePools(locale = 'en'): LocalePools {
  const cached = cache.get(locale);
  if (cached) return cached;
  const countries = countryList(locale);
  const lists = {
    firstNames: namePool(locale, 'first_name'),
    lastNames: namePool(locale, 'last_name'),
    countries,
    ...placesOf(locale, countries),
    ...englishWords(),
    dictionary: dictionary(locale),
  };
  const d = lists.dictionary;
  const every = [
    lists.firstNames.names,
    lists.lastNames.names,
    countries.flatMap((c) => c.names),
    [lists.home, ...lists.world].flatMap((p) => [...(p?.cities ?? []), ...(p?.states ?? [])]),
    lists.words,
    lists.lorem,
    d.streetNames,
    d.buildingNumbers,
    d.postcodes,
    d.companySuffixes,
    d.phonePatterns,
  ];
  // Words are also JSON keys and values, where a quote would be escaped with a backslash.
  const plain =
    every.every((list) => !list.some((s) => /[\\\t\n\r]/.test(s))) &&
    !lists.words.some((w) => w.includes('"'));
  const built: LocalePools = { ...lists, plain };
  cache.set(locale, built);
  return built;
}

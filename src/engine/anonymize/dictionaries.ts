// Dictionaries for the fakers, read once per locale from the faker library's locale data (its
// lists of names, streets, cities, countries, phone and postcode patterns), falling back along the
// locale's chain (de_AT → de → en). Only plain lists are taken: faker's `{{…}}` templates call its
// generators, which the hot path never does. A locale's data is loaded when first asked for, from
// the library's module of that locale: its index holds all seventy-six, which cost every process
// (and every transform worker) 300 ms of start-up and 17 MB of heap that the collector then walks.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface Dictionary {
  firstNames: readonly string[];
  lastNames: readonly string[];
  streetNames: readonly string[];
  /** Whether addresses write the street before the number (`Hauptstraße 12`). */
  streetFirst: boolean;
  buildingNumbers: readonly string[];
  cities: readonly string[];
  postcodes: readonly string[];
  countries: readonly string[];
  companySuffixes: readonly string[];
  phonePatterns: readonly string[];
  /** ISO country of the IBANs this locale's fakers write. */
  ibanCountry: string;
}

/** The faker library's locales (its `allLocales` but `base`; dictionaries.test.ts keeps the two equal). */
// biome-ignore format: a list of names, kept compact
export const FAKER_LOCALES: readonly string[] = [
  'af_ZA', 'ar', 'az', 'bn_BD', 'cs_CZ', 'cy', 'da', 'de', 'de_AT', 'de_CH', 'dv', 'el', 'en', 'en_AU',
  'en_AU_ocker', 'en_BORK', 'en_CA', 'en_GB', 'en_GH', 'en_HK', 'en_IE', 'en_IN', 'en_NG', 'en_NP', 'en_US',
  'en_ZA', 'eo', 'es', 'es_MX', 'fa', 'fi', 'fr', 'fr_BE', 'fr_CA', 'fr_CH', 'fr_LU', 'fr_SN', 'he', 'hr',
  'hu', 'hy', 'id_ID', 'it', 'ja', 'ka_GE', 'ko', 'ku_ckb', 'ku_kmr_latin', 'lv', 'mk', 'mn_MN_cyrl',
  'nb_NO', 'ne', 'nl', 'nl_BE', 'pl', 'pt_BR', 'pt_PT', 'ro', 'ro_MD', 'ru', 'sk', 'sl_SI', 'sr_RS_latin',
  'sv', 'ta_IN', 'th', 'tr', 'uk', 'ur', 'uz_UZ_latin', 'vi', 'yo_NG', 'zh_CN', 'zh_TW', 'zu_ZA',
];
const KNOWN = new Set([...FAKER_LOCALES, 'base']);

type Tree = Record<string, unknown>;

function at(tree: unknown, path: string[]): unknown {
  let node = tree;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Tree)[step];
  }
  return node;
}

/** A list of plain strings (no faker templates) at `path`, or null. */
function plainList(tree: unknown, path: string[]): string[] | null {
  const node = at(tree, path);
  const list = typeof node === 'string' ? [node] : node;
  if (!Array.isArray(list)) return null;
  const plain = list.filter((v): v is string => typeof v === 'string' && !v.includes('{{'));
  return plain.length > 0 ? plain : null;
}

/** Person names: the generic list, else female and male together. */
function names(tree: unknown, field: string): string[] | null {
  const generic = plainList(tree, ['person', field, 'generic']);
  if (generic) return generic;
  const both = [
    ...(plainList(tree, ['person', field, 'female']) ?? []),
    ...(plainList(tree, ['person', field, 'male']) ?? []),
  ];
  return both.length > 0 ? both : plainList(tree, ['person', field]);
}

/**
 * A locale's data as faker's own instance for it holds it: merged along faker's chain for the
 * locale, an entry taken whole from the first locale that has it.
 */
function localeData(locale: string): unknown {
  const module = require(`@faker-js/faker/locale/${locale}`) as { faker: { rawDefinitions: unknown } };
  return module.faker.rawDefinitions;
}

/**
 * Where each list is looked up, in order: the locale, its language, English, faker's base. Each
 * step is merged along faker's chain, and a step whose entry has no plain list (only templates)
 * falls through to the next, as an entry of the locale alone would.
 */
function chain(locale: string): unknown[] {
  const steps = [locale, locale.split('_')[0] as string, 'en', 'base'];
  return [...new Set(steps)].filter((l) => KNOWN.has(l)).map(localeData);
}

function first<T>(trees: unknown[], read: (tree: unknown) => T | null): T {
  for (const tree of trees) {
    const found = read(tree);
    if (found !== null) return found;
  }
  throw new Error('The faker locale data lacks a list every locale chain ends with');
}

/** IBAN countries whose BBAN is digits only, and its length. */
export const IBAN_BBAN_DIGITS: Record<string, number> = {
  DE: 18,
  AT: 16,
  BE: 12,
  ES: 20,
  FI: 14,
  PL: 24,
  PT: 21,
  HR: 17,
  SI: 15,
  EE: 16,
};

function ibanCountryOf(locale: string): string {
  const [language = '', region] = locale.toUpperCase().split('_');
  if (region && IBAN_BBAN_DIGITS[region]) return region;
  const byLanguage: Record<string, string> = {
    DE: 'DE',
    ES: 'ES',
    FI: 'FI',
    PL: 'PL',
    PT: 'PT',
    HR: 'HR',
    NL: 'BE',
  };
  return byLanguage[language] ?? 'DE';
}

const cache = new Map<string, Dictionary>();

export function dictionary(locale = 'en'): Dictionary {
  const cached = cache.get(locale);
  if (cached) return cached;
  const trees = chain(locale);
  const streetPattern = first(trees, (t) => {
    const pattern = at(t, ['location', 'street_address', 'normal']);
    return typeof pattern === 'string' ? pattern : null;
  });
  const built: Dictionary = {
    firstNames: first(trees, (t) => names(t, 'first_name')),
    lastNames: first(trees, (t) => names(t, 'last_name')),
    streetNames: first(trees, (t) => plainList(t, ['location', 'street_name'])),
    streetFirst: streetPattern.startsWith('{{location.street'),
    buildingNumbers: first(trees, (t) => plainList(t, ['location', 'building_number'])),
    cities: first(trees, (t) => plainList(t, ['location', 'city_name'])),
    postcodes: first(trees, (t) => plainList(t, ['location', 'postcode'])),
    countries: first(trees, (t) => plainList(t, ['location', 'country'])),
    companySuffixes: first(trees, (t) => plainList(t, ['company', 'legal_entity_type'])),
    phonePatterns: first(trees, (t) => plainList(t, ['phone_number', 'format', 'human'])),
    ibanCountry: ibanCountryOf(locale),
  };
  cache.set(locale, built);
  return built;
}

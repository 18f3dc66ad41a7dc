// The dictionaries load one locale's module of the faker library at a time; these pin what that
// must not change: the list of locales, and every list of every locale as read from the library's
// full index along the chain locale → language → en → base (what the e-mails, names and addresses
// of existing anonymised data were built from). One difference is meant: en_AU_ocker now falls
// back on en_AU before en, as faker's own chain for it does.
import { allLocales } from '@faker-js/faker';
import { describe, expect, it } from 'vitest';
import { dictionary, FAKER_LOCALES } from './dictionaries.ts';

const all = allLocales as unknown as Record<string, unknown>;
const at = (tree: unknown, path: string[]): unknown =>
  path.reduce<unknown>(
    (node, step) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[step] : undefined),
    tree,
  );
function plain(tree: unknown, path: string[]): string[] | null {
  const node = at(tree, path);
  const list = typeof node === 'string' ? [node] : node;
  if (!Array.isArray(list)) return null;
  const kept = list.filter((v): v is string => typeof v === 'string' && !v.includes('{{'));
  return kept.length > 0 ? kept : null;
}
function names(tree: unknown, field: string): string[] | null {
  const both = [
    ...(plain(tree, ['person', field, 'female']) ?? []),
    ...(plain(tree, ['person', field, 'male']) ?? []),
  ];
  return (
    plain(tree, ['person', field, 'generic']) ?? (both.length > 0 ? both : plain(tree, ['person', field]))
  );
}
function fromIndex(locale: string) {
  const trees = [...new Set([locale, locale.split('_')[0]!, 'en', 'base'])].flatMap((l) =>
    all[l] ? [all[l]] : [],
  );
  const first = (read: (tree: unknown) => string[] | null) => trees.map(read).find((found) => found !== null);
  return {
    firstNames: first((t) => names(t, 'first_name')),
    lastNames: first((t) => names(t, 'last_name')),
    streetNames: first((t) => plain(t, ['location', 'street_name'])),
    buildingNumbers: first((t) => plain(t, ['location', 'building_number'])),
    cities: first((t) => plain(t, ['location', 'city_name'])),
    postcodes: first((t) => plain(t, ['location', 'postcode'])),
    countries: first((t) => plain(t, ['location', 'country'])),
    companySuffixes: first((t) => plain(t, ['company', 'legal_entity_type'])),
    phonePatterns: first((t) => plain(t, ['phone_number', 'format', 'human'])),
    streetFirst: String(
      [...trees]
        .map((t) => at(t, ['location', 'street_address', 'normal']))
        .find((p) => typeof p === 'string'),
    ).startsWith('{{location.street'),
  };
}

describe('faker dictionaries, loaded a locale at a time', () => {
  it('know exactly the locales of the library', () => {
    expect([...FAKER_LOCALES].sort()).toEqual(
      Object.keys(allLocales)
        .filter((l) => l !== 'base')
        .sort(),
    );
  });

  it('hold every list the full index holds for each locale', () => {
    for (const locale of FAKER_LOCALES) {
      const { ibanCountry: _, ...lists } = dictionary(locale);
      const expected = fromIndex(locale);
      if (locale === 'en_AU_ocker')
        expected.companySuffixes = plain(all.en_AU, ['company', 'legal_entity_type']) ?? undefined;
      expect(lists, locale).toEqual(expected);
    }
  });
});

// The inferred realistic values (a `fake` generator: names, e-mails, places, phones, words…), each
// built to fit its column rather than cut to it: a value is made from list entries short enough,
// or takes a shorter form (an initial, a code, fewer words), so a `char(2)` country gets its ISO
// alpha-2 code and a `varchar(20)` e-mail keeps its `@example.com`. Names and places come from the
// row's persona (row-persona.ts), so the columns of a row agree; the other picks use the column's
// own key. A value costs a few hash rounds and a concatenation: the lists are narrowed to what fits
// once, when the column is compiled. Pure.
import { index, word } from './hash.ts';
import type { FakeValue } from './resolved.ts';
import { type CountryForm, countryForm, countryName, length, type RowPersona } from './row-persona.ts';

/** The text of a fake value for `row`; `attempt` counts redraws for a unique key (0 at first). */
export type FakeFn = (row: number, attempt: number) => string;

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const SHORT_DOMAIN = '@x.test';
/** Domains reserved for examples and tests, that no real mail reaches: the usual one, and a short one for narrow columns. */
const DOMAINS = ['@example.com', SHORT_DOMAIN];

/** The entries of `list` at most `room` characters long; `fallback` when none is. */
const fits = (list: readonly string[], room: number, fallback: readonly string[] = []): readonly string[] => {
  if (room === Number.POSITIVE_INFINITY) return list;
  const found = list.filter((s) => length(s) <= room);
  return found.length > 0 ? found : fallback;
};

/** The first of `forms` that fits `room`; the last one cut to it when none does. */
function firstFitting(forms: readonly string[], room: number): string {
  for (const form of forms) if (length(form) <= room) return form;
  const last = forms[forms.length - 1] ?? '';
  return [...last].slice(0, Math.max(0, room)).join('');
}

const capitalized = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/**
 * `pattern` with each `#` a digit, `!` a digit from 2 to 9 and `?` a letter, drawn from a few hash
 * words (nine digits a word) rather than one word a character.
 */
function filled(pattern: string, key: number, row: number, attempt: number, lane: number): string {
  let out = '';
  let w = 0;
  let left = 0;
  let next = lane;
  for (const c of pattern) {
    if (c !== '#' && c !== '!' && c !== '?') {
      out += c;
      continue;
    }
    if (left === 0) {
      w = word(key, row, attempt, next++);
      left = 9;
    }
    const d = w % 10;
    w = Math.floor(w / 10);
    left--;
    out += c === '#' ? String(d) : c === '!' ? String(2 + (d % 8)) : LETTERS[(d * 7 + left) % 26];
  }
  return out;
}

/** The value function of one `fake` column of `room` characters (Infinity: unbounded). */
export function fakeValue(fake: FakeValue, persona: RowPersona, key: number, room: number): FakeFn {
  const { pools } = persona;
  const d = pools.dictionary;
  const pick = (list: readonly string[], row: number, attempt: number, lane: number) =>
    list[index(key, row, list.length, attempt, lane)] as string;
  const firstOf = (row: number, attempt: number) => persona.firstName(row, attempt);
  const lastOf = (row: number, attempt: number) => persona.lastName(row, attempt);
  switch (fake) {
    case 'first_name':
      return (row, attempt) => persona.firstNames.names[firstOf(row, attempt)]!;
    case 'last_name':
      return (row, attempt) => persona.lastNames.names[lastOf(row, attempt)]!;
    case 'full_name':
      return (row, attempt) => {
        const first = persona.firstNames.names[firstOf(row, attempt)]!;
        const last = persona.lastNames.names[lastOf(row, attempt)]!;
        const whole = `${first} ${last}`;
        // Most values fit whole: the shorter forms are made only for the others.
        if (whole.length <= room) return whole;
        return firstFitting([whole, `${[...first][0]}. ${last}`, last, first], room);
      };
    case 'email':
      return (row, attempt) => {
        const first = persona.firstNames.ascii[firstOf(row, attempt)]!;
        const last = persona.lastNames.ascii[lastOf(row, attempt)]!;
        const n = word(key, row, attempt, 2) % 100;
        const usual = `${first}.${last}${n}${DOMAINS[0]}`;
        if (usual.length <= room) return usual;
        const forms = [`${first}.${last}${n}`, `${first[0]}.${last}${n}`, `${last}${n}`, last, first];
        for (const domain of DOMAINS) {
          const local = forms.find((f) => f.length + domain.length <= room);
          if (local !== undefined) return local + domain;
        }
        // A column too short for any whole form: the row's initials at a reserved domain, cut.
        return firstFitting([`${first[0]}${last}${SHORT_DOMAIN}`], room);
      };
    case 'username':
      return (row, attempt) => {
        const first = persona.firstNames.ascii[firstOf(row, attempt)]!;
        const last = persona.lastNames.ascii[lastOf(row, attempt)]!;
        const n = word(key, row, attempt, 2) % 1000;
        const usual = `${first}_${last}${n}`;
        if (usual.length <= room) return usual;
        return firstFitting(
          [`${first}_${last}${n}`, `${first[0]}${last}${n}`, `${last}${n}`, `${first}${n}`, last],
          room,
        );
      };
    case 'city': {
      const words = fits(pools.words, room, ['X']);
      return (row, attempt) => persona.place(row, attempt)?.city ?? capitalized(pick(words, row, attempt, 0));
    }
    case 'state': {
      // A country without states in the lists gives its city, as a district often is.
      const words = fits(pools.words, room, ['X']);
      return (row, attempt) => {
        const place = persona.place(row, attempt);
        if (place?.state) return place.state;
        if (place && length(place.city) <= room) return place.city;
        return capitalized(pick(words, row, attempt, 0));
      };
    }
    case 'country':
      return countryValue(persona, countryForm(room), room);
    case 'phone': {
      const patterns = fits(d.phonePatterns, room, ['#'.repeat(Math.max(1, Math.min(room, 12)))]);
      return (row, attempt) => filled(pick(patterns, row, attempt, 0), key, row, attempt, 10);
    }
    case 'company': {
      const lasts = fits(pools.lastNames.names, room, ['X']);
      return (row, attempt) => {
        const last = pick(lasts, row, attempt, 1);
        return firstFitting([`${last} ${pick(d.companySuffixes, row, attempt, 2)}`, last], room);
      };
    }
    case 'url': {
      const frame = 'https://www..example.com/'.length + 3;
      const words = fits(
        pools.words.map((w) => w.toLowerCase().replace(/[^a-z]/g, '')).filter((w) => w !== ''),
        room - frame,
      );
      if (words.length === 0) return () => firstFitting(['https://example.com/', 'http://x.test/'], room);
      return (row, attempt) =>
        `https://www.${pick(words, row, attempt, 0)}${word(key, row, attempt, 1) % 1000}.example.com/`;
    }
    case 'street_address': {
      const widest = Math.max(...d.buildingNumbers.map(length));
      const streets = fits(d.streetNames, room - widest - 1);
      return (row, attempt) => {
        const number = filled(pick(d.buildingNumbers, row, attempt, 1), key, row, attempt, 10);
        if (streets.length === 0) return firstFitting([number], room);
        const street = pick(streets, row, attempt, 0);
        return d.streetFirst ? `${street} ${number}` : `${number} ${street}`;
      };
    }
    case 'postal_code': {
      const patterns = fits(d.postcodes, room, ['#'.repeat(Math.max(1, Math.min(room, 5)))]);
      return (row, attempt) => filled(pick(patterns, row, attempt, 0), key, row, attempt, 10);
    }
    case 'title':
      return wordsValue(fits(pools.words.map(capitalized), room, ['X']), key, room, 1, 3, '');
    case 'sentence': {
      const words = fits(pools.lorem, room, ['x']);
      return wordsValue(words, key, room, 4, 12, '.', words.map(capitalized));
    }
    case 'code': {
      const size = Math.max(1, Math.min(room, 8));
      return (row, attempt) => {
        let out = '';
        const a = word(key, row, attempt, 0);
        const b = word(key, row, attempt, 1);
        for (let i = 0; i < size; i++) out += ALNUM[((i < 5 ? a : b) >>> ((i % 5) * 5)) & 31];
        return out;
      };
    }
    case 'word': {
      const words = fits(pools.words, room, ['x']);
      return (row, attempt) => pick(words, row, attempt, 0);
    }
    case 'uuid':
      return (row, attempt) => {
        const h = [0, 1, 2, 3].map((i) => word(key, row, attempt, i).toString(16).padStart(8, '0')).join('');
        return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[word(key, row, attempt, 5) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
      };
    case 'json':
      return (row, attempt) => {
        const name = pick(pools.words, row, attempt, 0);
        const value = pick(pools.words, row, attempt, 1);
        const n = word(key, row, attempt, 2) % 100;
        // Plain words need no JSON escape: the object is written as text, without a stringify.
        return pools.plain && name !== 'n'
          ? `{"${name}":"${value}","n":${n}}`
          : JSON.stringify({ [name]: value, n });
      };
    case 'boolean':
      return (row, attempt) => (word(key, row, attempt, 0) & 1 ? 't' : 'f');
  }
}

function countryValue(persona: RowPersona, form: CountryForm, room: number): FakeFn {
  switch (form) {
    case 'alpha2':
      return (row, attempt) => persona.country(row, attempt).alpha2;
    case 'alpha3':
      return (row, attempt) => persona.country(row, attempt).alpha3;
    case 'name':
      return (row, attempt) => {
        const country = persona.country(row, attempt);
        return countryName(country, room) ?? country.alpha3;
      };
  }
}

/**
 * Between `least` and `most` words of `list` joined by spaces, as many as fit `room`, ended by
 * `end` when it fits too. Two words are drawn from each hash word (16 bits each: lists are short).
 */
function wordsValue(
  list: readonly string[],
  key: number,
  room: number,
  least: number,
  most: number,
  end: string,
  /** The list's words as a first word is written (capitalized), of the same lengths. */
  firsts: readonly string[] = list,
): FakeFn {
  const lengths = list.map(length);
  const n = list.length;
  const wide = n > 0x10000;
  return (row, attempt) => {
    let w = word(key, row, attempt, 9);
    const count = least + (w % (most - least + 1));
    let text = '';
    let size = -1;
    for (let i = 0; i < count; i++) {
      let at: number;
      if (wide) at = index(key, row, n, attempt, i);
      else {
        if ((i & 1) === 0) w = word(key, row, attempt, i);
        at = Math.floor((((i & 1) === 0 ? w & 0xffff : w >>> 16) * n) / 0x10000);
      }
      const grown = size + 1 + (lengths[at] as number);
      if (i > 0 && grown > room) break;
      text = i === 0 ? (firsts[at] as string) : `${text} ${list[at]}`;
      size = grown;
    }
    return size + end.length <= room ? text + end : text;
  };
}

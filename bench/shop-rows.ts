// The shop bench's rows (bench/shop-schema.ts), written once per run as COPY text files that both
// `psql \copy … from` and MariaDB's `LOAD DATA LOCAL INFILE` read (tab-separated, `\N` for NULL,
// backslash escapes). Every value is a pure function of the row number: the same rows on every run
// and machine. Names, cities, phones and product names come from the locale lists faker ships
// (German, French, Spanish, Greek, Russian, Ukrainian, Polish, Italian, Chinese, Korean, Japanese,
// English), so the text is multibyte where real customer data is, and picked by an integer hash
// (no generator state), so writing a million rows takes about a second.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { allLocales } from '@faker-js/faker';
import { fmix } from '../src/engine/seed/hash.ts';
import { ORDER_STATUSES, SHOP_TABLES, type ShopTable, shopSizes } from './shop-schema.ts';

interface LocaleData {
  person?: { first_name?: unknown; last_name?: unknown };
  location?: { city_name?: string[]; street_name?: string[] };
  phone_number?: { format?: { international?: string[] } };
  commerce?: { product_name?: { adjective?: string[]; material?: string[]; product?: string[] } };
}

interface Region {
  country: string;
  currency: string;
  language: string;
  firstNames: string[];
  lastNames: string[];
  cities: string[];
  streets: string[];
  phones: string[];
  products: { adjective: string[]; material: string[]; product: string[] };
}

/** A faker list that may be split by gender (`{female, male}` or `{generic, …}`): all of its names. */
function names(list: unknown): string[] {
  if (Array.isArray(list)) return list as string[];
  if (list && typeof list === 'object')
    return [...new Set(Object.values(list as Record<string, string[]>).flat())];
  return [];
}

const locales = allLocales as unknown as Record<string, LocaleData>;
const english = locales.en!;

/** Where the locale has no city list of its own (Japanese), a few of its cities. */
const JAPANESE_CITIES = ['東京', '大阪', '京都', '横浜', '名古屋', '札幌', '神戸', '福岡', '仙台', '広島'];

function region(locale: string, country: string, currency: string, cities?: string[]): Region {
  const data = locales[locale]!;
  const products = data.commerce?.product_name ?? english.commerce!.product_name!;
  const lastNames = names(data.person?.last_name);
  return {
    country,
    currency,
    language: locale.slice(0, 2),
    firstNames: names(data.person?.first_name),
    lastNames,
    cities: cities ?? data.location?.city_name ?? [],
    // A locale without street names gets streets named after its own surnames.
    streets: data.location?.street_name ?? lastNames.slice(0, 300),
    phones: data.phone_number?.format?.international ?? ['+## ### #######'],
    products: {
      adjective: products.adjective ?? [],
      material: products.material ?? [],
      product: products.product ?? [],
    },
  };
}

const REGIONS: Region[] = [
  region('de', 'DE', 'EUR'),
  region('fr', 'FR', 'EUR'),
  region('es', 'ES', 'EUR'),
  region('el', 'GR', 'EUR'),
  region('ru', 'RU', 'RUB'),
  region('uk', 'UA', 'UAH'),
  region('pl', 'PL', 'PLN'),
  region('it', 'IT', 'EUR'),
  region('zh_CN', 'CN', 'CNY'),
  region('ko', 'KR', 'KRW'),
  region('ja', 'JP', 'JPY', JAPANESE_CITIES),
  region('en', 'US', 'USD'),
];

/** A well-mixed 32-bit hash of (n, salt): the murmur3 finaliser over the two folded together. */
function hash(n: number, salt: number): number {
  return fmix((Math.imul(n, 0x9e3779b1) ^ Math.imul(salt + 1, 0x85ebca6b)) >>> 0);
}

const pick = <T>(list: readonly T[], n: number, salt: number): T => list[hash(n, salt) % list.length]!;
const chance = (n: number, salt: number, percent: number) => hash(n, salt) % 100 < percent;

/** A value escaped for COPY text (and LOAD DATA's default format); NULL as `\N`. */
function text(value: string | null): string {
  if (value === null) return '\\N';
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : value;
}

/** The ASCII letters of a name for an e-mail's local part (accents dropped), or '' for other scripts. */
function ascii(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

const EPOCH = Date.UTC(2019, 0, 1) / 1000;
const SIX_YEARS = 6 * 365 * 86_400;
/** `YYYY-MM-DD HH:MM:SS` of a second since 1970, read as UTC by both engines' sessions here. */
const stamp = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

const DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example', 'shop.example'];
const THEMES = ['light', 'dark', 'system'];
const NOTES = [
  'Bitte beim Nachbarn abgeben',
  'Livrer après 18 h, merci',
  'Entregar en la portería',
  'Παράδοση στο γραφείο',
  'Позвонить за час до доставки',
  '请放在门口',
  '배송 전에 연락 주세요',
  '置き配を希望します',
  'Gift wrap, no invoice in the parcel',
];

const regionOf = (customer: number) => REGIONS[hash(customer, 1) % REGIONS.length]!;

function customerLine(id: number): string {
  const r = regionOf(id);
  const first = pick(r.firstNames, id, 2);
  const last = pick(r.lastNames, id, 3);
  const local = ascii(first) && ascii(last) ? `${ascii(first)}.${ascii(last)}` : `customer.${r.language}`;
  const email = `${local}${id}@${pick(DOMAINS, id, 4)}`;
  const phone = chance(id, 5, 15)
    ? null
    : pick(r.phones, id, 6).replace(/[#!]/g, (_, offset: number) => String(hash(id, 7 + offset) % 10));
  const street = chance(id, 8, 10) ? null : `${pick(r.streets, id, 9)} ${1 + (hash(id, 10) % 180)}`;
  const city = chance(id, 11, 3) ? null : pick(r.cities, id, 12);
  const preferences = chance(id, 13, 20)
    ? null
    : JSON.stringify({
        newsletter: chance(id, 14, 40),
        language: r.language,
        theme: pick(THEMES, id, 15),
        favourite: pick(r.products.product, id, 16),
      });
  const created = EPOCH + (hash(id, 17) % SIX_YEARS);
  const updated = chance(id, 18, 30) ? '\\N' : stamp(created + (hash(id, 19) % 86_400_000));
  return [
    id,
    text(first),
    text(last),
    text(email),
    text(phone),
    text(street),
    text(city),
    r.country,
    text(preferences),
    stamp(created),
    updated,
  ].join('\t');
}

function orderLine(id: number, customers: number): string {
  const customer = 1 + (hash(id, 20) % customers);
  const r = regionOf(customer);
  const status = pick(ORDER_STATUSES, id, 21);
  const placed = EPOCH + (hash(id, 22) % SIX_YEARS);
  const shipped =
    status === 'shipped' || status === 'delivered' ? stamp(placed + 3600 + (hash(id, 23) % 864_000)) : '\\N';
  const total = ((hash(id, 24) % 5_000_000) / 100).toFixed(2);
  const note = text(chance(id, 25, 70) ? null : pick(NOTES, id, 26));
  return [id, customer, status, total, r.currency, stamp(placed), shipped, note].join('\t');
}

function itemLine(id: number, orders: number, customers: number): string {
  const order = 1 + (hash(id, 30) % orders);
  const r = regionOf(1 + (hash(order, 20) % customers));
  const { adjective, material, product } = r.products;
  const name = `${pick(adjective, id, 31)} ${pick(material, id, 32)} ${pick(product, id, 33)}`;
  const price = ((100 + (hash(id, 34) % 99_900)) / 100).toFixed(2);
  return [id, order, text(name), 1 + (hash(id, 35) % 9), price].join('\t');
}

async function writeLines(file: string, count: number, line: (id: number) => string): Promise<void> {
  const out = createWriteStream(file);
  const batch: string[] = [];
  for (let id = 1; id <= count; id++) {
    batch.push(line(id));
    if (batch.length === 10_000 || id === count) {
      if (!out.write(`${batch.join('\n')}\n`)) await once(out, 'drain');
      batch.length = 0;
    }
  }
  out.end();
  await once(out, 'finish');
}

/** Writes `rows` rows in all into one file per table under `dir`; the files' paths by table. */
export async function writeShopRows(dir: string, rows: number): Promise<Record<ShopTable, string>> {
  const sizes = shopSizes(rows);
  const files = Object.fromEntries(SHOP_TABLES.map((t) => [t, path.join(dir, `${t}.tsv`)])) as Record<
    ShopTable,
    string
  >;
  await writeLines(files.customers, sizes.customers, customerLine);
  await writeLines(files.orders, sizes.orders, (id) => orderLine(id, sizes.customers));
  await writeLines(files.order_items, sizes.order_items, (id) => itemLine(id, sizes.orders, sizes.customers));
  return files;
}

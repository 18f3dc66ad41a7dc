// What makes a shop bench run correct, asked of the databases themselves: row counts and digests of
// the ordered rows equal on both sides where the data was copied as it is, the foreign keys in place,
// validated and without orphans, and anonymized columns as their rules say while the others are
// untouched. Each check returns the problems it found; none means correct.
import mysql from 'mysql2/promise';
import { queryPostgres } from '../test/support/target-query.ts';
import { SHOP_TABLES, type ShopTable } from './shop-schema.ts';

const pgRows = queryPostgres;

async function pgOne<T>(url: string, sql: string): Promise<T> {
  const [row] = await pgRows<T>(url, sql);
  if (!row) throw new Error(`no row: ${sql}`);
  return row;
}

export interface Digest {
  rows: number;
  md5: string;
}

/** Count and digest of a PostgreSQL table's rows in key order (each row's text, hashed, then all). */
export function pgTableDigest(url: string, table: string): Promise<Digest> {
  return pgOne<Digest>(
    url,
    `select count(*)::int as rows, coalesce(md5(string_agg(md5(t::text), '' order by id)), '') as md5 from ${table} t`,
  );
}

/** Counts and digests of the shop tables of a PostgreSQL database. */
export async function pgShopDigests(url: string): Promise<Record<ShopTable, Digest>> {
  const entries = await Promise.all(SHOP_TABLES.map(async (t) => [t, await pgTableDigest(url, t)] as const));
  return Object.fromEntries(entries) as Record<ShopTable, Digest>;
}

/** The tables whose count or digest differ between `expected` and `got`. */
export function digestsDiffer(expected: Record<string, Digest>, got: Record<string, Digest>): string[] {
  return Object.entries(expected).flatMap(([table, want]) => {
    const have = got[table];
    if (!have) return [`${table}: missing`];
    if (have.rows !== want.rows) return [`${table}: ${have.rows} rows, expected ${want.rows}`];
    return have.md5 === want.md5 ? [] : [`${table}: rows differ from the source's (digest)`];
  });
}

/** The shop's two foreign keys are there, validated, and no child row lacks its parent. */
export async function pgForeignKeysValid(url: string, schema = 'public'): Promise<string[]> {
  const q = (t: string) => `"${schema}".${t}`;
  const keys = await pgOne<{ valid: number; all: number }>(
    url,
    `select count(*) filter (where convalidated)::int as valid, count(*)::int as all from pg_constraint
     where contype = 'f' and conrelid in ('${q('orders')}'::regclass, '${q('order_items')}'::regclass)`,
  );
  const orphans = await pgOne<{ orders: number; items: number }>(
    url,
    `select (select count(*) from ${q('orders')} o where not exists (select from ${q('customers')} c where c.id = o.customer_id))::int as orders,
            (select count(*) from ${q('order_items')} i where not exists (select from ${q('orders')} o where o.id = i.order_id))::int as items`,
  );
  const problems: string[] = [];
  if (keys.all !== 2) problems.push(`${keys.all} foreign keys, expected 2`);
  if (keys.valid !== keys.all) problems.push(`${keys.all - keys.valid} foreign keys not validated`);
  if (orphans.orders + orphans.items > 0)
    problems.push(`${orphans.orders} orders and ${orphans.items} items without their parent`);
  return problems;
}

/** The customers' text columns, ordered by key, in one digest both engines compute alike. */
const CUSTOMER_TEXT = "concat_ws('|', id, first_name, last_name, email, phone, street, city, country)";

export async function pgCustomersText(url: string, schema = 'public'): Promise<Digest> {
  return pgOne<Digest>(
    url,
    `select count(*)::int as rows, md5(string_agg(${CUSTOMER_TEXT}, E'\\n' order by id)) as md5 from "${schema}".customers`,
  );
}

export async function mysqlCustomersText(url: string): Promise<Digest> {
  const connection = await mysql.createConnection({ uri: url });
  try {
    await connection.query('set session group_concat_max_len = 4294967295');
    const [rows] = await connection.query(
      `select count(*) as \`rows\`, md5(group_concat(${CUSTOMER_TEXT} order by id separator '\\n')) as md5 from customers`,
    );
    const [row] = rows as { rows: number; md5: string }[];
    return { rows: Number(row?.rows), md5: String(row?.md5) };
  } finally {
    await connection.end();
  }
}

export async function mysqlCounts(url: string): Promise<Record<ShopTable, number>> {
  const connection = await mysql.createConnection({ uri: url });
  try {
    const counts: Partial<Record<ShopTable, number>> = {};
    for (const table of SHOP_TABLES) {
      const [rows] = await connection.query(`select count(*) as n from ${table}`);
      counts[table] = Number((rows as { n: number }[])[0]?.n);
    }
    return counts as Record<ShopTable, number>;
  } finally {
    await connection.end();
  }
}

export async function pgCounts(url: string, schema = 'public'): Promise<Record<ShopTable, number>> {
  const row = await pgOne<Record<ShopTable, number>>(
    url,
    `select ${SHOP_TABLES.map((t) => `(select count(*) from "${schema}".${t})::int as ${t}`).join(', ')}`,
  );
  return row;
}

/** Digests of the customers' columns the rules leave alone, and of what the mask keeps. */
const KEPT = {
  untouched:
    "concat_ws('|', id, first_name, street, city, country, preferences::text, created_at, updated_at)",
  phoneEnds: "concat_ws('|', id, right(phone, 4), phone is null)",
  email: "concat_ws('|', id, email)",
  lastName: "concat_ws('|', id, last_name)",
};

async function customerDigests(url: string): Promise<Record<keyof typeof KEPT, string>> {
  const select = Object.entries(KEPT)
    .map(([name, expr]) => `md5(string_agg(${expr}, E'\\n' order by id)) as "${name}"`)
    .join(', ');
  return pgOne(url, `select ${select} from customers`);
}

/**
 * The anonymized customers at `url` against their clear source: every e-mail shaped like one and
 * none left as it was, every phone masked but for its last 4 (NULLs kept), every last name a hex
 * hash, every other column as in the source.
 */
export async function anonymizedAsRuled(url: string, sourceUrl: string): Promise<string[]> {
  const shape = await pgOne<{ rows: number; emails: number; phones: number; names: number }>(
    url,
    String.raw`select count(*)::int as rows,
       count(*) filter (where email !~ '^[^@\s]+@[^@\s]+\.[a-z]{2,}$')::int as emails,
       count(*) filter (where phone is not null and (length(phone) < 5 or left(phone, -4) !~ '^\*+$'))::int as phones,
       count(*) filter (where last_name !~ '^[0-9a-f]{8,}$')::int as names
     from customers`,
  );
  const source = await pgOne<{ rows: number }>(sourceUrl, 'select count(*)::int as rows from customers');
  const [got, clear] = await Promise.all([customerDigests(url), customerDigests(sourceUrl)]);
  const problems: string[] = [];
  if (shape.rows !== source.rows) problems.push(`${shape.rows} customers, expected ${source.rows}`);
  if (shape.emails > 0) problems.push(`${shape.emails} e-mails not shaped like one`);
  if (shape.phones > 0) problems.push(`${shape.phones} phones not masked but for their last 4`);
  if (shape.names > 0) problems.push(`${shape.names} last names not a hash`);
  if (got.untouched !== clear.untouched) problems.push('columns without a rule changed');
  if (got.phoneEnds !== clear.phoneEnds) problems.push("phones' last 4 (or their NULLs) not kept");
  if (got.email === clear.email) problems.push('e-mails left as they were');
  if (got.lastName === clear.lastName) problems.push('last names left as they were');
  return problems;
}

/**
 * What a seeded customers table looks like, as shares: e-mails shaped like one and holding the row's
 * last name, upper-case 2-letter countries, distinct first names among the first 1,000 rows.
 */
export async function seededCustomers(
  url: string,
): Promise<{ emails: number; namedEmails: number; countries: number; distinctFirstNames: number }> {
  return pgOne(
    url,
    String.raw`select
       (count(*) filter (where email ~ '^[^@\s]+@[^@\s]+\.[a-z]{2,}$'))::float / greatest(count(*), 1) as emails,
       (count(*) filter (where position(lower(last_name) in lower(email)) > 0))::float / greatest(count(*), 1) as "namedEmails",
       (count(*) filter (where country ~ '^[A-Z]{2}$'))::float / greatest(count(*), 1) as countries,
       (select count(distinct first_name)::float / greatest(count(*), 1)
          from (select first_name from customers order by id limit 1000) f) as "distinctFirstNames"
     from customers`,
  );
}

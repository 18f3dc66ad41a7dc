import { beforeAll, describe, expect, it } from 'vitest';
import { checkFilter, loadFilterParser, readMysqlFilter, readPostgresFilter } from './filter-check.ts';

const TABLE = { schema: null, name: 'orders', columns: ['id', 'name', 'created_at', 'active', 'status'] };

beforeAll(() => loadFilterParser());

describe.each(['postgresql', 'mysql'] as const)('filters on %s', (dialect) => {
  const check = (filter: string) =>
    checkFilter(dialect === 'postgresql' ? readPostgresFilter : readMysqlFilter, filter, TABLE);

  it.each([
    'id > 10',
    "id BETWEEN 1 AND 100 AND name LIKE 'a%'",
    'name IS NOT NULL OR NOT active',
    "id IN (1, 2, 3) AND lower(name) = 'x'",
    "(id % 10) = 0 AND coalesce(name, '') <> ''",
    "created_at >= '2024-01-01'",
    "status = 'paid'",
    "orders.status = 'paid'",
    "name = 'it''s -- not a comment'",
  ])('accepts %s', (filter) => {
    expect(check(filter).ok).toBe(true);
  });

  it.each([
    ['id IN (SELECT id FROM other)', /subquer|not allowed/],
    ['id = 1; DROP TABLE people', /one boolean expression|parse/],
    ['id = 1) UNION SELECT * FROM secrets WHERE (1 = 1', /one boolean expression|parse|not allowed/],
    ['id > 0) OR (true', /parse/],
    ['id > 0 --\n) OR (true', /parse|comment/],
    ['sleep(10) = 0', /function sleep/],
    ['missing = 1', /unknown column missing/],
    ['other.id = 1', /columns of the table itself/],
    ['', /empty/],
  ])('refuses %s', (filter, message) => {
    const verdict = check(filter);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.message).toMatch(message);
  });

  it('refuses a filter over 4,000 characters', () => {
    const verdict = check(`id > ${'1'.repeat(4000)}`);
    expect(verdict.ok ? '' : verdict.message).toMatch(/longer than 4,000/);
  });

  it('writes the parsed expression, columns bare, never the text received', () => {
    const verdict = check("orders.status = 'paid'   AND id>1");
    expect(verdict).toEqual({
      ok: true,
      sql: dialect === 'postgresql' ? "status = 'paid' AND id > 1" : "`status` = 'paid' AND `id` > 1",
    });
  });
});

it('refuses the functions that are not on the list, by engine', () => {
  expect(checkFilter(readPostgresFilter, 'random() < 0.5', TABLE).ok).toBe(false);
  expect(checkFilter(readPostgresFilter, 'pg_sleep(1) IS NULL', TABLE).ok).toBe(false);
  expect(checkFilter(readMysqlFilter, 'id = 1 /*!50000 OR 1=1 */', TABLE).ok).toBe(false);
  expect(checkFilter(readMysqlFilter, 'benchmark(1000, md5(name)) = 0', TABLE).ok).toBe(false);
});

describe('a MySQL filter is read and written as the source server reads it', () => {
  it('with backslash escapes (the default), a backslash-quote stays inside the string', () => {
    expect(checkFilter(readMysqlFilter, "name = 'a\\' OR id > 0'", TABLE)).toEqual({
      ok: true,
      sql: "`name` = 'a'' OR id > 0'",
    });
  });

  it('under NO_BACKSLASH_ESCAPES, a backslash ends nothing: the string closes at the quote', () => {
    const verdict = checkFilter(
      readMysqlFilter,
      "name = 'a\\' OR id > 0",
      TABLE,
      'STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES',
    );
    expect(verdict).toEqual({ ok: true, sql: "`name` = 'a\\' OR `id` > 0" });
    // The same text with escapes on is one string: refused as an unterminated literal.
    expect(checkFilter(readMysqlFilter, "name = 'a\\' OR id > 0", TABLE).ok).toBe(false);
  });

  it('under ANSI_QUOTES, "…" names a column; otherwise it is a string', () => {
    expect(checkFilter(readMysqlFilter, `"status" = 'paid'`, TABLE, 'ANSI_QUOTES')).toEqual({
      ok: true,
      sql: "`status` = 'paid'",
    });
    expect(checkFilter(readMysqlFilter, `name = "paid"`, TABLE)).toEqual({
      ok: true,
      sql: "`name` = 'paid'",
    });
    expect(checkFilter(readMysqlFilter, `name = "paid"`, TABLE, 'ANSI').ok).toBe(false);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { checkFilter, loadFilterParser } from './filter-check.ts';

const COLUMNS = ['id', 'name', 'created_at', 'active'];

beforeAll(() => loadFilterParser());

describe.each(['postgresql', 'mysql'] as const)('filters on %s', (dialect) => {
  const check = (filter: string) => checkFilter(dialect, filter, COLUMNS);

  it.each([
    'id > 10',
    "id BETWEEN 1 AND 100 AND name LIKE 'a%'",
    'name IS NOT NULL OR NOT active',
    "id IN (1, 2, 3) AND lower(name) = 'x'",
    "(id % 10) = 0 AND coalesce(name, '') <> ''",
    "created_at >= '2024-01-01'",
  ])('accepts %s', (filter) => {
    expect(check(filter)).toEqual({ ok: true });
  });

  it.each([
    ['id IN (SELECT id FROM other)', /subquer|not allowed/],
    ['id = 1; DROP TABLE people', /one boolean expression|parse/],
    ['id = 1) UNION SELECT * FROM secrets WHERE (1 = 1', /one boolean expression|parse|not allowed/],
    ['sleep(10) = 0', /function sleep/],
    ['missing = 1', /unknown column missing/],
    ['other.id = 1', /columns of the table itself/],
    ['', /empty/],
  ])('refuses %s', (filter, message) => {
    const verdict = check(filter);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.message).toMatch(message);
  });
});

it('refuses the functions that are not on the list, by engine', () => {
  expect(checkFilter('postgresql', 'random() < 0.5', COLUMNS).ok).toBe(false);
  expect(checkFilter('postgresql', 'pg_sleep(1) IS NULL', COLUMNS).ok).toBe(false);
  expect(checkFilter('mysql', 'id = 1 /*!50000 OR 1=1 */', COLUMNS).ok).toBe(false);
  expect(checkFilter('mysql', 'benchmark(1000, md5(name)) = 0', COLUMNS).ok).toBe(false);
});

import { describe, expect, it } from 'vitest';
import { type ColumnLimits, readCheck, readPredicate } from './limits.ts';

const read = (...expressions: string[]) => {
  const out = new Map<string, ColumnLimits>();
  for (const e of expressions) readCheck(e, out);
  return Object.fromEntries(out);
};

describe('CHECK constraints as the catalogs print them', () => {
  it('reads PostgreSQL IN lists (= ANY (ARRAY[…]) with casts), ranges and lengths', () => {
    expect(
      read(
        "CHECK (((tier)::text = ANY ((ARRAY['bronze'::character varying, 'silver'::character varying])::text[])))",
        'CHECK (((score >= 1) AND (score <= 5)))',
        'CHECK ((total > (0)::numeric))',
        'CHECK ((char_length((code)::text) = 3))',
        "CHECK (((payment_date >= '2007-01-01 00:00:00'::timestamp without time zone) AND (payment_date < '2007-02-01 00:00:00'::timestamp without time zone)))",
      ),
    ).toEqual({
      tier: { allowed: ['bronze', 'silver'] },
      score: { lower: { value: 1, inclusive: true }, upper: { value: 5, inclusive: true } },
      total: { lower: { value: 0, inclusive: false } },
      code: { minLength: 3, maxLength: 3 },
      payment_date: {
        lower: { value: Date.UTC(2007, 0, 1), inclusive: true },
        upper: { value: Date.UTC(2007, 1, 1), inclusive: false },
      },
    });
  });

  it("reads MySQL's backquotes, IN and BETWEEN, and flips a constant on the left", () => {
    expect(read("(`tier` in ('a','b'))", '(`score` between 1 and 5)', '(0 < `qty`)')).toEqual({
      tier: { allowed: ['a', 'b'] },
      score: { lower: { value: 1, inclusive: true }, upper: { value: 5, inclusive: true } },
      qty: { lower: { value: 0, inclusive: false } },
    });
  });

  it('leaves what it cannot read to the database', () => {
    expect(read('CHECK ((lower(email) = email))', 'CHECK ((a > b))')).toEqual({});
  });
});

describe('partial index predicates', () => {
  it('reads IS NULL, equality and boolean columns; refuses the rest', () => {
    expect(readPredicate('(deleted_at IS NULL)')).toEqual([{ column: 'deleted_at', test: 'null' }]);
    expect(readPredicate("((status)::text = 'live'::text) AND active")).toEqual([
      { column: 'status', test: 'equals', value: 'live' },
      { column: 'active', test: 'equals', value: 'true' },
    ]);
    expect(readPredicate('(NOT archived)')).toEqual([{ column: 'archived', test: 'equals', value: 'false' }]);
    expect(readPredicate('(a > b)')).toBeNull();
  });
});

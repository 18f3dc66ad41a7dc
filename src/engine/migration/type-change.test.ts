import { describe, expect, it } from 'vitest';
import { traitsOf } from '../schema/engine-traits.ts';
import { classifyTypeChange } from './type-change.ts';

describe('classifyTypeChange', () => {
  it.each([
    ['integer', 'bigint', 'widening', true],
    ['bigint', 'integer', 'narrowing', true],
    ['character varying(10)', 'character varying(20)', 'widening', false],
    ['character varying(20)', 'text', 'widening', false],
    ['text', 'character varying(5)', 'narrowing', true],
    ['numeric(5,2)', 'numeric(8,2)', 'widening', false],
    ['numeric(5,2)', 'numeric(5,3)', 'narrowing', true],
    ['timestamp(3) without time zone', 'timestamp(6) without time zone', 'widening', false],
    ['real', 'double precision', 'widening', true],
    ['text', 'integer', 'changing', true],
    ['public.a', 'public.b', 'changing', true],
  ] as const)('PostgreSQL %s → %s: %s, rewrite %s', (from, to, direction, rewrite) => {
    expect(classifyTypeChange(from, to, traitsOf('postgresql'))).toEqual({ direction, rewrite });
  });

  it.each([
    ['int', 'bigint', 'widening', true],
    ['int unsigned', 'int', 'narrowing', true],
    ['int', 'int unsigned', 'narrowing', true],
    ['smallint unsigned', 'int', 'widening', true],
    ['varchar(10)', 'varchar(20)', 'widening', false],
    ['varchar(255)', 'text', 'widening', true],
    ['varchar(20)', 'varchar(10)', 'narrowing', true],
    ["enum('a','b')", "enum('a','b','c')", 'widening', false],
    ["enum('a','b')", "enum('b','a')", 'changing', true],
    ['decimal(5,2)', 'decimal(6,2)', 'widening', true],
  ] as const)('MySQL %s → %s: %s, rewrite %s', (from, to, direction, rewrite) => {
    expect(classifyTypeChange(from, to, traitsOf('mysql'))).toEqual({ direction, rewrite });
  });
});

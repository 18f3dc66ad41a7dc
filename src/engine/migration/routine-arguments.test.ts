import { describe, expect, it } from 'vitest';
import { sameArgumentsButDefaults, splitArguments } from './routine-arguments.ts';

describe('routine argument lists', () => {
  it('splits at top-level commas only', () => {
    expect(splitArguments("a integer, b text DEFAULT 'x, y', c integer[] DEFAULT ARRAY[1, 2]")).toEqual([
      'a integer',
      "b text DEFAULT 'x, y'",
      'c integer[] DEFAULT ARRAY[1, 2]',
    ]);
    expect(splitArguments('')).toEqual([]);
  });

  it('lets a replacement change or add defaults, nothing else', () => {
    expect(sameArgumentsButDefaults('a integer, b integer DEFAULT 2', 'a integer, b integer DEFAULT 3')).toBe(
      true,
    );
    expect(sameArgumentsButDefaults('a integer, b integer', 'a integer, b integer DEFAULT 3')).toBe(true);
    expect(sameArgumentsButDefaults('a integer, b integer DEFAULT 2', 'a integer, b integer')).toBe(false);
    expect(sameArgumentsButDefaults('a integer', 'x integer')).toBe(false);
    expect(sameArgumentsButDefaults('a integer', 'a bigint')).toBe(false);
    expect(sameArgumentsButDefaults('a integer', 'a integer, b integer DEFAULT 1')).toBe(false);
    expect(sameArgumentsButDefaults('INOUT x integer', 'OUT x integer')).toBe(false);
  });
});

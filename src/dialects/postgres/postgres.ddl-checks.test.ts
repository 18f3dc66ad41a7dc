import { describe, expect, it } from 'vitest';
import { checkToWrite } from './postgres.ddl-checks.ts';

describe('checkToWrite', () => {
  it('writes a printed varchar IN list back as the IN list, quotes and all', () => {
    expect(
      checkToWrite(
        "status::text = ANY (ARRAY['new'::character varying, 'it''s'::character varying]::text[])",
      ),
    ).toBe("status IN ('new', 'it''s')");
    expect(checkToWrite("VALUE::text = ANY (ARRAY['YES'::character varying]::text[])")).toBe(
      "VALUE IN ('YES')",
    );
    expect(checkToWrite(`("Kind"::text = ANY (ARRAY['a'::character varying]::text[])) AND n > 0`)).toBe(
      `("Kind" IN ('a')) AND n > 0`,
    );
  });

  it('leaves other arrays and casts as printed', () => {
    const text = "status = ANY (ARRAY['a'::text, 'b'::text])";
    expect(checkToWrite(text)).toBe(text);
    const mixed = "code::text = ANY (ARRAY['a'::bpchar, 'b'::bpchar]::text[])";
    expect(checkToWrite(mixed)).toBe(mixed);
  });
});

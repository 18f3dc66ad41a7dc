import { describe, expect, it } from 'vitest';
import { normalizeCheckExpression } from './normalize-expressions.ts';

describe('normalizeCheckExpression', () => {
  it('prints a check re-parsed by a column retype as the one created with the new type', () => {
    const created = "status::text = ANY (ARRAY['new'::character varying, 'done'::character varying]::text[])";
    const retyped =
      "status::text = ANY (ARRAY['new'::character varying::text, 'done'::character varying::text])";
    expect(normalizeCheckExpression(retyped)).toBe(created);
    expect(normalizeCheckExpression(created)).toBe(created);
  });

  it('leaves arrays whose elements differ in cast, text in strings, and other expressions alone', () => {
    const mixed = 'x = ANY (ARRAY[1::bigint, 2::integer])';
    expect(normalizeCheckExpression(mixed)).toBe(mixed);
    const quoted = "note <> 'ARRAY[''a''::text]'::text";
    expect(normalizeCheckExpression(quoted)).toBe(quoted);
    expect(normalizeCheckExpression('char_length(k::text) > 2')).toBe('char_length(k::text) > 2');
  });

  it('gathers casts to a qualified or sized type, and inside nested arrays; never a single cast', () => {
    expect(normalizeCheckExpression("s = ANY (ARRAY['a'::text::shop.state, 'b'::text::shop.state])")).toBe(
      "s = ANY (ARRAY['a'::text, 'b'::text]::shop.state[])",
    );
    expect(
      normalizeCheckExpression("c = ANY (ARRAY[ARRAY['x'::text::character(3), 'y'::text::character(3)]])"),
    ).toBe("c = ANY (ARRAY[ARRAY['x'::text, 'y'::text]::character(3)[]])");
    const plain = "s = ANY (ARRAY['a'::text, 'b'::text])";
    expect(normalizeCheckExpression(plain)).toBe(plain);
  });
});

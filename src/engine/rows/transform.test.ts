// transformFields against the decode-everything path (transformBatch): the same rows out for the
// same per-field rule, the untouched fields passed on byte for byte (escapes as they came), NULL
// handed to the rule as null, and the appended text after each row.
import { describe, expect, it } from 'vitest';
import { encodeRow } from './copy-text.ts';
import { transformBatch, transformFields } from './transform.ts';

const upper = (value: string | null) => (value === null ? 'was null' : value.toUpperCase());

describe('transformFields', () => {
  it('applies the rule to its field only and matches the decoded path', () => {
    const rows = [
      ['1', 'tab\there', 'a\\b'],
      ['2', null, 'line\nbreak'],
      ['3', 'plain', null],
    ];
    const data = Buffer.from(rows.map(encodeRow).join(''));
    const fast = transformFields(data, new Map([[1, upper]]));
    const slow = transformBatch(data, (decoded) =>
      decoded.map((r) => r.map((v, i) => (i === 1 ? upper(v) : v))),
    );
    expect(fast.rows).toBe(3);
    expect(fast.data.toString()).toBe(slow.data.toString());
    expect(fast.data.toString()).toBe('1\tTAB\\tHERE\ta\\\\b\n2\twas null\tline\\nbreak\n3\tPLAIN\t\\N\n');
  });

  it('hands a transform that takes bytes each field without escapes as bytes, the others as text', () => {
    const seen: string[] = [];
    const rule = Object.assign(
      (value: string | null) => {
        seen.push(`text ${value}`);
        return 'T';
      },
      {
        utf8: (data: Buffer, start: number, end: number) => {
          seen.push(`bytes ${data.toString('utf8', start, end)}`);
          return 'B';
        },
      },
    );
    const data = Buffer.from('1\tZoë\n2\ttab\\there\n3\t\\N\n');
    expect(transformFields(data, new Map([[1, rule]])).data.toString()).toBe('1\tB\n2\tT\n3\tT\n');
    expect(seen).toEqual(['bytes Zoë', 'text tab\there', 'text null']);
  });

  it('passes untouched fields on as they arrived, escapes included', () => {
    // \b is PostgreSQL's escape for a backspace: re-encoding would write the raw byte instead.
    const data = Buffer.from('x\\b\ty\n');
    expect(transformFields(data, new Map([[1, upper]])).data.toString()).toBe('x\\b\tY\n');
  });

  it('appends the extra text from the original fields and the row index', () => {
    const data = Buffer.from('7\tsecret\n8\tother\n');
    const out = transformFields(data, new Map([[1, () => 'masked']]), (raw, row) => `\t${raw(1)}\t${row}`);
    expect(out.data.toString()).toBe('7\tmasked\tsecret\t0\n8\tmasked\tother\t1\n');
    expect(out.rows).toBe(2);
  });

  it('writes non-ASCII values as UTF-8 and reads them back', () => {
    const data = Buffer.from('1\tZoë\tΣ\n2\t東京\tx\n');
    const out = transformFields(data, new Map([[1, (v) => `«${v}»`]]));
    expect(out.data.toString()).toBe('1\t«Zoë»\tΣ\n2\t«東京»\tx\n');
  });

  it('grows its buffer when the values grow, and skips fields a short row does not have', () => {
    const data = Buffer.from('a\tb\nc\n');
    const long = 'é'.repeat(5000);
    const out = transformFields(
      data,
      new Map([
        [1, () => long],
        [3, () => 'never'],
      ]),
    );
    expect(out.data.toString()).toBe(`a\t${long}\nc\n`);
    expect(out.rows).toBe(2);
  });

  it('keeps a last row without its newline whole, and an empty batch empty', () => {
    expect(transformFields(Buffer.from('1\tx'), new Map([[1, upper]])).data.toString()).toBe('1\tX\n');
    expect(transformFields(Buffer.alloc(0), new Map([[1, upper]]))).toEqual({
      data: Buffer.alloc(0),
      rows: 0,
    });
  });

  it('hands the appended text the fields as they arrived, escapes included', () => {
    const data = Buffer.from('k\\1\tv\n');
    const out = transformFields(data, new Map([[1, upper]]), (raw) => `\t${raw(0)}\t${raw(5) ?? 'none'}`);
    expect(out.data.toString()).toBe('k\\1\tV\tk\\1\tnone\n');
  });

  it('keeps a cut last row of more fields than it first makes room for', () => {
    // 64 tabs fill the room for 64 fields; the cut field after them needs more.
    const fields = Array.from({ length: 65 }, (_, i) => `f${i}`);
    const out = transformFields(Buffer.from(fields.join('\t')), new Map([[64, upper]]));
    expect(out.data.toString()).toBe(`${[...fields.slice(0, 64), 'F64'].join('\t')}\n`);
  });
});

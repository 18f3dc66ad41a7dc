import { describe, expect, it } from 'vitest';
import { countRows, decodeRow, encodeField, encodeRow, type RowBatch, wholeRowBatches } from './copy-text.ts';
import { transformBatches } from './transform.ts';

async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield Buffer.from(part);
}

async function collect(batches: AsyncIterable<RowBatch>): Promise<RowBatch[]> {
  const out: RowBatch[] = [];
  for await (const batch of batches) out.push(batch);
  return out;
}

describe('neutral row text', () => {
  it('round-trips NULL, the empty string, escapes and multibyte text', () => {
    const row = [null, '', '\\N', 'a\tb\nc\rd\\e', 'ñ 日本 🎉'];
    const line = encodeRow(row);
    expect(line).toBe('\\N\t\t\\\\N\ta\\tb\\nc\\rd\\\\e\tñ 日本 🎉\n');
    expect(countRows(Buffer.from(line))).toBe(1);
    expect(decodeRow(line.slice(0, -1))).toEqual(row);
  });

  it('escapes backslash, tab and newline wherever they are in a value', () => {
    expect([encodeField('abcdefgh\\'), encodeField('a\tb'), encodeField('x\ny')]).toEqual([
      'abcdefgh\\\\',
      'a\\tb',
      'x\\ny',
    ]);
  });

  it("reads PostgreSQL's other escapes and MySQL's \\0 and \\Z", () => {
    expect(decodeRow('\\b\\f\\v\\0\\Z\\101')).toEqual(['\b\f\v\0\x1a' + 'A']);
  });

  it('cuts a stream into whole rows whatever the chunk boundaries', async () => {
    const batches = await collect(wholeRowBatches(chunks('1\ta\n2\t', 'b\n3', '\tc\n'), 4));
    expect(batches.map((b) => [b.data.toString(), b.rows])).toEqual([
      ['1\ta\n', 1],
      ['2\tb\n', 1],
      ['3\tc\n', 1],
    ]);
  });

  it('refuses a stream that ends inside a row', async () => {
    await expect(collect(wholeRowBatches(chunks('1\ta\n2')))).rejects.toThrow(/inside a row/);
  });

  it('a transform sees decoded rows and its output is re-encoded', async () => {
    const batches = transformBatches(
      (async function* () {
        yield { data: Buffer.from('1\talice\n2\t\\N\n'), rows: 2 };
      })(),
      ([id, name]) => [id ?? null, name == null ? null : name.toUpperCase()],
    );
    expect((await collect(batches)).map((b) => [b.data.toString(), b.rows])).toEqual([
      ['1\tALICE\n2\t\\N\n', 2],
    ]);
  });
});

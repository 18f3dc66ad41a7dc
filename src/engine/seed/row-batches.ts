// Lines of the row format cut into batches: each line written into the batch's buffer as soon as
// it is made, so that its strings die young (a batch held as one long string outlives the young
// generation and swells the heap), a batch cut at `batchRows` rows or when its buffer is full.
// Where a stream is cut never changes what it holds. Pure.
import type { RowBatch } from '../rows/copy-text.ts';

/** Bytes of a batch's buffer: a batch is cut early when its rows fill it. */
const BATCH_BYTES = 1 << 20;

/** `lines` (each ending in a newline) as batches of at most `batchRows` rows. */
export function* lineBatches(lines: Iterable<string>, batchRows: number): Generator<RowBatch> {
  let buffer = Buffer.allocUnsafe(BATCH_BYTES);
  let used = 0;
  let count = 0;
  for (const line of lines) {
    // At most three bytes of UTF-8 for each UTF-16 unit.
    if (used + line.length * 3 > buffer.length) {
      if (count > 0) yield { data: buffer.subarray(0, used), rows: count };
      buffer = Buffer.allocUnsafe(Math.max(BATCH_BYTES, line.length * 3));
      used = 0;
      count = 0;
    }
    used += buffer.write(line, used);
    if (++count >= batchRows) {
      yield { data: buffer.subarray(0, used), rows: count };
      buffer = Buffer.allocUnsafe(BATCH_BYTES);
      used = 0;
      count = 0;
    }
  }
  if (count > 0) yield { data: buffer.subarray(0, used), rows: count };
}

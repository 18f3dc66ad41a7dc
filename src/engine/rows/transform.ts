// The per-row transform hook of the row pipeline: where anonymization plugs in (API §9.2), between
// a row stream out of one target and a row stream into another. A transform sees each row decoded
// (text or null per field, in the stream's column order) and returns the row to write. Without a
// transform nothing is decoded: batches pass as bytes. Pure.
import { decodeRow, encodeRow, type RowBatch, type RowValues } from './copy-text.ts';

export type RowTransform = (row: RowValues) => RowValues;

/** The batches with `transform` applied to every row; same batch boundaries, same row counts. */
export async function* transformBatches(
  batches: AsyncIterable<RowBatch>,
  transform: RowTransform,
): AsyncGenerator<RowBatch> {
  for await (const batch of batches) {
    const lines = batch.data.toString('utf8').split('\n');
    // The batch ends with a newline: the last piece is empty.
    lines.pop();
    let out = '';
    for (const line of lines) out += encodeRow(transform(decodeRow(line)));
    yield { data: Buffer.from(out, 'utf8'), rows: lines.length };
  }
}

/** Runs `each` on every batch as it passes (progress, cancellation checkpoints) without touching it. */
export async function* tapBatches(
  batches: AsyncIterable<RowBatch>,
  each: (batch: RowBatch) => Promise<void>,
): AsyncGenerator<RowBatch> {
  for await (const batch of batches) {
    await each(batch);
    yield batch;
  }
}

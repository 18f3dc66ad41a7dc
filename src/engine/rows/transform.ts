// The per-row transform hook of the row pipeline: where anonymization plugs in (API §9.2), between
// a row stream out of one target and a row stream into another. A transform sees each row decoded
// (text or null per field, in the stream's column order) and returns the row to write. Without a
// transform nothing is decoded: batches pass as bytes. Pure.
import {
  decodeField,
  decodeRow,
  encodeField,
  encodeRow,
  type RowBatch,
  type RowValues,
} from './copy-text.ts';

export type RowTransform = (row: RowValues) => RowValues;
/** A transform of a batch's rows at once (a shuffle permutes values among them); same count, same order of rows out. */
export type BatchTransform = (rows: RowValues[]) => RowValues[];

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

/** One batch with `transform` applied to its decoded rows. */
export function transformBatch(data: Buffer, transform: BatchTransform): RowBatch {
  const lines = data.toString('utf8').split('\n');
  // The batch ends with a newline: the last piece is empty.
  lines.pop();
  const rows = transform(lines.map(decodeRow));
  let out = '';
  for (const row of rows) out += encodeRow(row);
  return { data: Buffer.from(out, 'utf8'), rows: rows.length };
}

/** The batches with `transform` applied to each batch's decoded rows; same batch boundaries, same row counts. */
export async function* transformRowBatches(
  batches: AsyncIterable<RowBatch>,
  transform: BatchTransform,
): AsyncGenerator<RowBatch> {
  for await (const batch of batches) yield transformBatch(batch.data, transform);
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

/** A transform of one field's text (null for NULL); what a per-column rule is on the row pipeline. */
export type FieldTransform = (value: string | null) => string | null;

/**
 * One batch with `fields` (by position) applied to each row, the other fields passed on as the
 * bytes they were, never decoded: an anonymised copy masks a few columns of wide rows, and decoding
 * and re-encoding every field was most of its per-row cost besides the transformers. `extra`, when
 * given, returns text (already in the neutral format, tab-led) appended to each row, from its
 * original fields as they arrived (still encoded) and its index in the batch.
 */
export function transformFields(
  data: Buffer,
  fields: ReadonlyMap<number, FieldTransform>,
  extra?: (raw: readonly string[], row: number) => string,
): RowBatch {
  const text = data.toString('utf8');
  const touched = [...fields];
  let out = '';
  let rows = 0;
  for (let start = 0; start < text.length; rows++) {
    let end = text.indexOf('\n', start);
    // The batch ends with a newline; a missing one would be a cut row, kept whole all the same.
    if (end === -1) end = text.length;
    const raw = text.slice(start, end).split('\t');
    const done = extra ? raw.slice() : raw;
    for (const [at, apply] of touched)
      if (at < raw.length) done[at] = encodeField(apply(decodeField(raw[at] as string)));
    out += done.join('\t');
    if (extra) out += extra(raw, rows);
    out += '\n';
    start = end + 1;
  }
  return { data: Buffer.from(out, 'utf8'), rows };
}

// The per-row transform hook of the row pipeline: where anonymization plugs in (docs/contract.md §9.2), between
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
export interface FieldTransform {
  (value: string | null): string | null;
  /** The same of a field without escapes (so not NULL) given as its bytes, data[start, end), when the transform can take them. */
  utf8?: (data: Buffer, start: number, end: number) => string | null;
}

/** A row's original field at a position, as it arrived (still encoded), or undefined past its last field. */
export type RawField = (at: number) => string | undefined;

const TAB = 0x09;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BACKSLASH = 0x5c;

/**
 * One batch with `fields` (by position) applied to each row, the other fields passed on as the
 * bytes they were, never decoded: an anonymised copy masks a few columns of wide rows. The batch is
 * worked on as bytes: each row is scanned once for its tabs, only a transformed field becomes a
 * string, and the row goes out as copied byte ranges and written values, into one buffer. (Through
 * strings, a batch became one long string, a line, an array of fields and a joined line per row,
 * and a rope of the lines that lived as long as the batch: the garbage collector's threads then cost
 * as much as a transformer.) `extra`, when given, returns text (already in the neutral format,
 * tab-led) appended to each row, from its original fields and its index in the batch.
 */
export function transformFields(
  data: Buffer,
  fields: ReadonlyMap<number, FieldTransform>,
  extra?: (raw: RawField, row: number) => string,
): RowBatch {
  const touched = [...fields].sort(([a], [b]) => a - b);
  const positions = touched.map(([at]) => at);
  const applies = touched.map(([, apply]) => apply);
  const fromBytes = touched.map(([, apply]) => apply.utf8);
  // Never from the shared pool: a worker hands the whole memory over (transform-worker.ts).
  let out = Buffer.allocUnsafeSlow(data.length + 1024);
  let size = 0;
  /** Room for `bytes` more: the buffer doubles when a row grows past it. */
  const reserve = (bytes: number) => {
    if (size + bytes <= out.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(out.length * 2, size + bytes));
    out.copy(grown, 0, 0, size);
    out = grown;
  };
  // Field boundaries of the current row: field i is data[starts[i], ends[i]).
  let starts: Int32Array = new Int32Array(64);
  let ends: Int32Array = new Int32Array(64);
  let escaped: Int32Array = new Int32Array(64);
  let count = 0;
  const raw: RawField = (at) => (at < count ? data.toString('utf8', starts[at], ends[at]) : undefined);
  let rows = 0;
  const length = data.length;
  for (let start = 0; start < length; rows++) {
    // One pass over the row's bytes: where each field ends, and whether it holds an escape.
    count = 0;
    let fieldStart = start;
    let sawEscape = 0;
    let at = start;
    for (; at < length; at++) {
      const byte = data[at]!;
      if (byte === TAB || byte === NEWLINE) {
        if (count === starts.length) [starts, ends, escaped] = [grow(starts), grow(ends), grow(escaped)];
        starts[count] = fieldStart;
        ends[count] = at;
        escaped[count++] = sawEscape;
        if (byte === NEWLINE) break;
        fieldStart = at + 1;
        sawEscape = 0;
      } else if (byte === BACKSLASH) sawEscape = 1;
    }
    // The batch ends with a newline; a missing one would be a cut row, kept whole all the same.
    if (at === length) {
      if (count === starts.length) [starts, ends, escaped] = [grow(starts), grow(ends), grow(escaped)];
      starts[count] = fieldStart;
      ends[count] = at;
      escaped[count++] = sawEscape;
    }
    const rowEnd = at;
    // Untouched stretches are copied as they are; a touched field is decoded, transformed, encoded.
    let copyFrom = start;
    for (let t = 0; t < positions.length; t++) {
      const field = positions[t]!;
      if (field >= count) break;
      const s = starts[field]!;
      const e = ends[field]!;
      reserve(s - copyFrom);
      size = copyBytes(data, copyFrom, s, out, size);
      // A field the transform can take as bytes is never made a string (a keyed hash reads the bytes).
      const utf8 = escaped[field] ? undefined : fromBytes[t];
      let value: string | null;
      if (utf8) value = utf8(data, s, e);
      else {
        const text = data.toString('utf8', s, e);
        value = applies[t]!(escaped[field] ? decodeField(text) : text);
      }
      // At most 3 bytes per UTF-16 unit, escapes included (2 bytes for 1 unit).
      reserve(value === null ? 2 : value.length * 3);
      size = writeField(out, value, size);
      copyFrom = e;
    }
    reserve(rowEnd - copyFrom + 1);
    size = copyBytes(data, copyFrom, rowEnd, out, size);
    if (extra) {
      const appended = extra(raw, rows);
      reserve(appended.length * 3 + 1);
      size = writeText(out, appended, size);
    }
    out[size++] = NEWLINE;
    start = rowEnd + 1;
  }
  return { data: out.subarray(0, size), rows };
}

// The two helpers below write into `out` at `at` (room checked by the caller) and return where they
// end. Short copies go by hand: a native call per field cost more than the bytes it moved.

/** `from[start, end)` into `out`. */
function copyBytes(from: Buffer, start: number, end: number, out: Buffer, at: number): number {
  if (end - start > 64) return at + from.copy(out, at, start, end);
  for (let i = start; i < end; i++) out[at++] = from[i]!;
  return at;
}

/** `text` as UTF-8 (ASCII, nearly every value, by hand). */
function writeText(out: Buffer, text: string, at: number): number {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return at + i + out.write(text.slice(i), at + i, 'utf8');
    out[at + i] = code;
  }
  return at + n;
}

/** A field's value in the neutral format (encodeField), escaping as it copies. */
function writeField(out: Buffer, value: string | null, at: number): number {
  if (value === null) return writeText(out, '\\N', at);
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x80 || code === TAB || code === NEWLINE || code === CARRIAGE_RETURN || code === BACKSLASH)
      return writeText(out, encodeField(value.slice(i)), at + i);
    out[at + i] = code;
  }
  return at + n;
}

function grow(array: Int32Array): Int32Array {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}

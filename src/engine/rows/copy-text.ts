// The neutral row format of the row pipeline (docs/architecture.md): the text format that PostgreSQL's
// `COPY … FROM STDIN` and MySQL's `LOAD DATA LOCAL INFILE … FIELDS TERMINATED BY '\t' ESCAPED BY
// '\\'` both read. One row a line, fields separated by a tab, `\N` for NULL (so NULL and the empty
// string stay distinct), and backslash escapes for backslash, tab, newline and carriage return. A
// raw 0x0A byte therefore always ends a row, which lets batches be cut and counted without decoding.
// Values are the engines' text forms with a few fixed choices (value-kind.ts): binary as `\x` + hex,
// timestamps with time zone in UTC, decimals as printed. Pure.

const NEWLINE = 0x0a;

/** A run of whole rows in the neutral format, with how many rows it holds. */
export interface RowBatch {
  data: Buffer;
  rows: number;
}

/** One decoded row: each field's text, or null. */
export type RowValues = (string | null)[];

/** How many rows (newline-terminated lines) `chunk` holds. */
export function countRows(chunk: Buffer): number {
  let rows = 0;
  let at = chunk.indexOf(NEWLINE);
  while (at !== -1) {
    rows++;
    at = chunk.indexOf(NEWLINE, at + 1);
  }
  return rows;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
// `test` without the global flag: a global expression carries its position from one call to the next.
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPED_CHARACTERS = /[\\\t\n\r]/g;

/** One field's text in the neutral format. */
export function encodeField(value: string | null): string {
  if (value === null) return '\\N';
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED_CHARACTERS, (c) => ESCAPES[c]!) : value;
}

/** One row as a line of the neutral format, newline included. */
export function encodeRow(values: RowValues): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : '\t') + encodeField(values[i] ?? null);
  return `${line}\n`;
}

const UNESCAPE: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '0': '\0',
  Z: '\x1a',
};

/** A field's text from the neutral format (PostgreSQL's escapes, and MySQL's `\0` and `\Z`). */
export function decodeField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  let out = '';
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!;
    if (c !== '\\' || i === field.length - 1) {
      out += c;
      continue;
    }
    const next = field[++i]!;
    // PostgreSQL also writes \ooo octal and \xhh; its own output uses neither, but accept them.
    if (next >= '1' && next <= '7') {
      const digits = /^[0-7]{1,3}/.exec(field.slice(i))![0];
      out += String.fromCharCode(Number.parseInt(digits, 8));
      i += digits.length - 1;
    } else out += UNESCAPE[next] ?? next;
  }
  return out;
}

/** The fields of one line (without its newline). */
export function decodeRow(line: string): RowValues {
  return line.split('\t').map(decodeField);
}

/**
 * Cuts a byte stream into batches of whole rows: a chunk of a driver's stream may end inside a
 * row; its tail waits for the next chunk. `target` bytes make a batch (cancellation and progress
 * happen between batches, so a batch is the unit of both).
 */
export async function* wholeRowBatches(
  chunks: AsyncIterable<Buffer>,
  targetBytes = 1 << 20,
): AsyncGenerator<RowBatch> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let pendingRows = 0;
  let tail: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const last = chunk.lastIndexOf(NEWLINE);
    if (last === -1) {
      tail = tail.length === 0 ? chunk : Buffer.concat([tail, chunk]);
      continue;
    }
    const head = chunk.subarray(0, last + 1);
    // The tail and the head are one row's two pieces, side by side in the batch: copied together
    // only with the rest of the batch, not once more per chunk.
    if (tail.length > 0) pending.push(tail);
    pending.push(head);
    pendingBytes += tail.length + head.length;
    tail = chunk.subarray(last + 1);
    pendingRows += countRows(head);
    if (pendingBytes >= targetBytes) {
      yield { data: pending.length === 1 ? pending[0]! : Buffer.concat(pending), rows: pendingRows };
      pending = [];
      pendingBytes = 0;
      pendingRows = 0;
    }
  }
  if (tail.length > 0) throw new Error('The row stream ended inside a row');
  if (pendingRows > 0) yield { data: Buffer.concat(pending), rows: pendingRows };
}

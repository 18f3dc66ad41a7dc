// The read side of the MySQL row pipeline (mysql.rows.ts): a streaming SELECT whose rows are
// printed straight into batches of the neutral text format, byte for byte.
//
// This is the hot loop of a MySQL→anything copy, so it avoids what profiling showed to dominate:
// no promise per row (rows arrive as mysql2 `result` events and are written into the current batch
// synchronously; only whole batches cross an await), no string per field (mysql2 hands over each
// field's bytes with typeCast off, and they are copied into the batch, escaping the four bytes the
// format reserves, instead of being decoded to a JS string, escaped by regex and encoded again).
// Back-pressure: when batches wait unread, the connection is paused (mysql2 then stops reading its
// socket), so memory stays bounded by a few batches whatever the table size.
import type { RowBatch } from '../../engine/rows/copy-text.ts';
import type { ValueKind } from '../../engine/rows/value-kind.ts';

/**
 * A batch is handed on once it holds this many bytes. Each batch is a new buffer, freed only when
 * the garbage collector gets to it: with 1 MB batches a 5M-row copy grew the process by ~150 MB of
 * dead batches, with 128 kB ones by ~20 MB, at the same speed.
 */
const BATCH_BYTES = 1 << 17;
/** Batches allowed to wait for the consumer before the connection is paused. */
const QUEUED_BATCHES = 2;

const TAB = 0x09;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BACKSLASH = 0x5c;
const NULL_FIELD = Buffer.from('\\N');
/** MYSQL_TYPE_BIT: its bytes are a big-endian number, not text. */
const MYSQL_TYPE_BIT = 16;

/** The core (callback) mysql2 connection and query: the promise wrapper has no row events. */
export interface CoreConnection {
  query(options: object): CoreQuery;
  pause(): void;
  resume(): void;
}

interface CoreQuery {
  on(event: 'result', listener: (row: (Buffer | null)[]) => void): CoreQuery;
  on(event: 'fields', listener: (fields: { columnType: number }[]) => void): CoreQuery;
  on(event: 'end', listener: () => void): CoreQuery;
  on(event: 'error', listener: (error: unknown) => void): CoreQuery;
  removeAllListeners(event: string): CoreQuery;
}

/**
 * Writes rows of raw MySQL fields into a growing buffer in the neutral format (copy-text.ts):
 * `\N` for NULL, backslash, tab, newline and carriage return escaped, binary as `\x` + hex (its
 * backslash escaped too, as in any field), BIT as its decimal value.
 */
export class NeutralRowWriter {
  private out = Buffer.allocUnsafe(BATCH_BYTES + (BATCH_BYTES >> 2));
  private at = 0;
  rows = 0;
  private readonly binary: boolean[];
  private bit: boolean[] = [];

  /** `binary`: per column, whether its bytes are printed as hex. */
  constructor(binary: boolean[]) {
    this.binary = binary;
  }

  setBits(bit: boolean[]): void {
    this.bit = bit;
  }

  get bytes(): number {
    return this.at;
  }

  private reserve(n: number): void {
    if (this.at + n <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.at + n));
    this.out.copy(grown, 0, 0, this.at);
    this.out = grown;
  }

  write(row: (Buffer | null)[]): void {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) {
        this.reserve(1);
        this.out[this.at++] = TAB;
      }
      const raw = row[i];
      if (raw === null || raw === undefined) {
        this.reserve(2);
        this.at += NULL_FIELD.copy(this.out, this.at);
      } else if (this.bit[i]) {
        let n = 0n;
        for (const byte of raw) n = (n << 8n) | BigInt(byte);
        const digits = n.toString();
        this.reserve(digits.length);
        this.at += this.out.write(digits, this.at, 'latin1');
      } else if (this.binary[i]) {
        // `\x` + hex is the field's text; its backslash is escaped like any other.
        this.reserve(4 + raw.length * 2);
        this.out[this.at++] = BACKSLASH;
        this.out[this.at++] = BACKSLASH;
        this.out[this.at++] = 0x78; // x
        this.at += this.out.write(raw.toString('hex'), this.at, 'latin1');
      } else this.text(raw);
    }
    this.reserve(1);
    this.out[this.at++] = NEWLINE;
    this.rows++;
  }

  /** A text field's bytes, each reserved byte written as its two-character escape. */
  private text(raw: Buffer): void {
    // Escaping at most doubles the length; reserving that much once keeps the loop free of checks.
    this.reserve(raw.length * 2);
    const out = this.out;
    let at = this.at;
    for (let j = 0; j < raw.length; j++) {
      const byte = raw[j]!;
      if (byte === BACKSLASH || byte === TAB || byte === NEWLINE || byte === CARRIAGE_RETURN) {
        out[at++] = BACKSLASH;
        out[at++] = byte === BACKSLASH ? BACKSLASH : byte === TAB ? 0x74 : byte === NEWLINE ? 0x6e : 0x72;
      } else out[at++] = byte;
    }
    this.at = at;
  }

  /** The rows written so far as a batch; the writer starts a new buffer. */
  take(): RowBatch {
    const batch = { data: this.out.subarray(0, this.at), rows: this.rows };
    this.out = Buffer.allocUnsafe(Math.max(BATCH_BYTES + (BATCH_BYTES >> 2), this.out.length >> 1));
    this.at = 0;
    this.rows = 0;
    return batch;
  }
}

/**
 * The rows of `sql` as batches of the neutral format. `kinds` are the selected columns' kinds
 * (binary columns are printed as hex). `fail` turns a driver error into the session's error.
 */
export async function* readNeutralBatches(
  core: CoreConnection,
  sql: string,
  kinds: ValueKind[],
  fail: (error: unknown) => Error,
): AsyncGenerator<RowBatch> {
  const writer = new NeutralRowWriter(kinds.map((kind) => kind === 'binary'));
  const ready: RowBatch[] = [];
  let ended = false;
  let failure: unknown;
  let paused = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  const query = core.query({ sql, rowsAsArray: true, typeCast: false });
  query.on('fields', (fields) => writer.setBits(fields.map((f) => f.columnType === MYSQL_TYPE_BIT)));
  query.on('result', (row) => {
    writer.write(row);
    if (writer.bytes < BATCH_BYTES) return;
    ready.push(writer.take());
    if (ready.length >= QUEUED_BATCHES && !paused) {
      paused = true;
      core.pause();
    }
    signal();
  });
  query.on('end', () => {
    ended = true;
    signal();
  });
  query.on('error', (error) => {
    failure = error;
    ended = true;
    signal();
  });
  try {
    for (;;) {
      const batch = ready.shift();
      if (batch) {
        if (paused && ready.length < QUEUED_BATCHES) {
          paused = false;
          core.resume();
        }
        yield batch;
        continue;
      }
      if (failure !== undefined) throw fail(failure);
      if (ended) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    if (writer.rows > 0) yield writer.take();
  } finally {
    if (!ended) {
      // The consumer stopped early: the rest of the result is read and dropped, so the
      // connection stays usable (as mysql2's own stream does when destroyed).
      query.removeAllListeners('result');
      query.on('error', () => {});
      if (paused) core.resume();
    }
  }
}

// Naming the row a failing COPY stopped at. PostgreSQL says the line (`COPY line, line 812,
// column qty`), which tells a user nothing about which row of theirs it is; the rows are streamed,
// not kept. So the last few batches sent stay referenced until the COPY ends (the server reports a
// bad line shortly after it arrives: what was sent after it is bounded by the socket's buffers and
// the one batch read ahead), and only on failure is that one line read again, to say its key.
import { decodeField, type RowBatch } from '../../engine/rows/copy-text.ts';

/** Batches kept: at 1 MB each, more than the server can be behind the client (its socket buffers and the one batch read ahead). */
const KEPT_BATCHES = 4;
/** A key value longer than this is cut in the message. */
const KEY_VALUE_LIMIT = 100;
const NEWLINE = 0x0a;

export interface RecentLines {
  /** The batches as they go, each remembered with the number of its first line. */
  tap(batches: AsyncIterable<RowBatch>): AsyncIterable<RowBatch>;
  /** Line `n` (1-based) of the stream, if it is still kept. */
  line(n: number): string | undefined;
}

export function recentLines(): RecentLines {
  const kept: { first: number; batch: RowBatch }[] = [];
  let lines = 0;
  return {
    async *tap(batches) {
      for await (const batch of batches) {
        kept.push({ first: lines + 1, batch });
        lines += batch.rows;
        if (kept.length > KEPT_BATCHES) kept.shift();
        yield batch;
      }
    },
    line(n) {
      const at = kept.find((k) => n >= k.first && n < k.first + k.batch.rows);
      if (!at) return undefined;
      const data = at.batch.data;
      let start = 0;
      for (let skip = n - at.first; skip > 0; skip--) start = data.indexOf(NEWLINE, start) + 1;
      const end = data.indexOf(NEWLINE, start);
      return data.toString('utf8', start, end === -1 ? data.length : end);
    },
  };
}

/**
 * ` row key (a, b) = (1, x)`: the key of the row at the line a COPY error's context names
 * (`COPY t, line 812…`), or '' when there is no key, no line, or the line is no longer kept.
 */
export function rowKeyAt(
  context: string | undefined,
  recent: RecentLines,
  columns: string[],
  key: string[] | undefined,
): string {
  const line = context && /^COPY .*?, line (\d+)/.exec(context)?.[1];
  if (!line || !key || key.length === 0) return '';
  const text = recent.line(Number(line));
  if (text === undefined) return '';
  const fields = text.split('\t');
  const values: string[] = [];
  for (const column of key) {
    const at = columns.indexOf(column);
    if (at === -1) return '';
    const value = decodeField(fields[at] ?? '\\N');
    values.push(
      value === null
        ? 'NULL'
        : value.length > KEY_VALUE_LIMIT
          ? `${value.slice(0, KEY_VALUE_LIMIT)}…`
          : value,
    );
  }
  return `, row key (${key.join(', ')}) = (${values.join(', ')})`;
}

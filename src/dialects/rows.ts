// The row pipeline's shared pieces on the dialect side (docs/architecture.md: one row pipeline for bridge,
// anonymization and seeds). Each engine opens a RowSession on a connection of its own
// (postgres/postgres.rows.ts: COPY through pg-copy-streams; mysql/mysql.rows.ts: a streaming
// SELECT and LOAD DATA LOCAL INFILE from a stream); rows cross as batches of the neutral text
// format (engine/rows/copy-text.ts), pulled, so the slowest end sets the pace and memory stays
// bounded by a few batches whatever the table size.
import { TargetError } from './errors.ts';

/** A qualified, quoted table name. */
export function qualifiedTable(
  quote: (name: string) => string,
  table: { schema: string | null; name: string },
): string {
  return table.schema === null ? quote(table.name) : `${quote(table.schema)}.${quote(table.name)}`;
}

/**
 * Counts the rows of the batches as they pass, for the writers' results: a writer reports the
 * rows it sent, which, when the load commits, are the rows written. It also keeps the error of the
 * feeding side (`tally.upstream`), which the writer rethrows as it is; only that one: when the
 * writer fails (its connection lost), Readable.from's destroy throws the writer's own error into
 * this generator at its `yield`, and that raw driver error must stay the writer's to classify.
 */
export async function* counted(
  batches: AsyncIterable<{ data: Buffer; rows: number }>,
  tally: { rows: number; upstream?: unknown },
): AsyncGenerator<Buffer> {
  const source = batches[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let next: IteratorResult<{ data: Buffer; rows: number }>;
      try {
        next = await source.next();
      } catch (error) {
        // The feeding side failed (the source, a transform, a cancellation): the writer must rethrow
        // it as it is, and must never let a load that stopped early commit as if it were complete.
        finished = true;
        tally.upstream ??= error;
        throw error;
      }
      if (next.done) {
        finished = true;
        return;
      }
      tally.rows += next.value.rows;
      yield next.value.data;
    }
  } finally {
    // Stopped at a `yield` (the writer failed or stopped): the source is closed, as for-await does.
    if (!finished) await source.return?.();
  }
}

/** A target error whose message also says where the server was (a COPY line, a LOAD DATA row). */
export function withContext(error: TargetError, context: string | undefined): TargetError {
  if (!context) return error;
  return new TargetError(error.cause, `${error.message} (${context})`, error.code);
}

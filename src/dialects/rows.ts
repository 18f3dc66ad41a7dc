// The row pipeline's shared pieces on the dialect side (DESIGN §2: one row pipeline for bridge,
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
 * rows it sent, which, when the load commits, are the rows written.
 */
export async function* counted(
  batches: AsyncIterable<{ data: Buffer; rows: number }>,
  tally: { rows: number; upstream?: unknown },
): AsyncGenerator<Buffer> {
  try {
    for await (const batch of batches) {
      tally.rows += batch.rows;
      yield batch.data;
    }
  } catch (error) {
    // The feeding side failed (the source, a transform, a cancellation): the writer must rethrow it
    // as it is, and must never let a load that stopped early commit as if it were complete.
    tally.upstream ??= error;
    throw error;
  }
}

/** A target error whose message also says where the server was (a COPY line, a LOAD DATA row). */
export function withContext(error: TargetError, context: string | undefined): TargetError {
  if (!context) return error;
  return new TargetError(error.cause, `${error.message} (${context})`, error.code);
}

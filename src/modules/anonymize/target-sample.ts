// Bounded samples of a target's rows for the PII scan and the preview: one plain SELECT with a LIMIT
// per table, identifiers quoted by the connection's dialect, in a transaction that is rolled back
// (nothing is ever written). Values are turned into JSON (dates as ISO text, big integers as text).
import type { TableModel } from '../../engine/schema/model.ts';
import type { Connection } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';

/** The most rows a sample reads of one table (docs/contract.md §9.2: at most 1,000 per column). */
export const SAMPLE_LIMIT = 1000;

export type Row = Record<string, unknown>;

/** Reads up to `limit` rows of `columns` of each table, one statement per table. */
export function sampleTables(
  connections: Pick<ConnectionsService, 'withTarget' | 'dialectOf'>,
  connection: Connection,
  reads: { table: TableModel; columns: string[]; notNull?: string }[],
  limit: number,
): Promise<Row[][]> {
  const dialect = connections.dialectOf(connection);
  const q = (name: string) => dialect.quoteIdent(name);
  const limited = Math.max(1, Math.min(limit, SAMPLE_LIMIT));
  return connections.withTarget(connection, (handle) =>
    handle.transaction(
      async (tx) => {
        const out: Row[][] = [];
        for (const { table, columns, notNull } of reads) {
          const from = table.schema === null ? q(table.name) : `${q(table.schema)}.${q(table.name)}`;
          const where = notNull ? ` WHERE ${q(notNull)} IS NOT NULL` : '';
          // The limit is a validated integer of ours, not input: some engines refuse it as a parameter.
          const sql = `SELECT ${columns.map(q).join(', ')} FROM ${from}${where} LIMIT ${limited}`;
          out.push((await tx.query(sql)).rows);
        }
        return out;
      },
      { commit: false },
    ),
  );
}

/** A value as the API can send it. */
export function toJsonValue(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value)) return value.toString('hex');
  return value;
}

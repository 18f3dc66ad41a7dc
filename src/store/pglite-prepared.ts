// Named prepared statements on the embedded store. `PGlite.query()` parses, describes and plans its
// text on every call (an unnamed statement, five calls into the WebAssembly backend): the projects
// page took 480 µs that way and 140 µs bound to a statement parsed once, measured on this machine.
// Here each data statement (the same StatementNames as the PostgreSQL store) is parsed once per
// PGlite instance, its parameter types kept, and every later run is one call that binds, describes
// the portal, executes and syncs, its results read by PGlite's own parser, with its own serializers
// and parsers, so the rows are what `query()` would have returned.
//
// Locks: PGlite runs a query under its query lock, and one outside a transaction also under its
// transaction lock, so that it never runs inside another caller's open transaction; a statement of
// an open transaction holds the transaction lock already and takes only the query lock. The same
// here. A Sync ends every message batch, so an error leaves the session ready for the next query.
import { type PGlite, parse, protocol } from '@electric-sql/pglite';
import { StatementNames } from './prepared-statements.ts';

/** SQLSTATE of "cached plan must not change result type": the schema changed under a statement. */
const FEATURE_NOT_SUPPORTED = '0A000';

export interface PreparedResult<R> {
  rows: R[];
  affectedRows: number | undefined;
}

interface Prepared {
  name: string;
  /** Type OIDs of the parameters, as the backend inferred them: each value's serializer. */
  parameterTypes: number[];
}

export class PGliteStatements {
  readonly #pglite: PGlite;
  readonly #names = new StatementNames();
  /** Statements parsed in this PGlite session, by text. */
  readonly #prepared = new Map<string, Prepared>();

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  /** Whether `text` runs as a named statement (data statements only, and a bounded number). */
  handles(text: string): boolean {
    return this.#names.of(text) !== undefined;
  }

  /** Runs a statement `handles` accepted; `inTransaction`: called by the open transaction's owner. */
  run<R>(text: string, values: readonly unknown[], inTransaction: boolean): Promise<PreparedResult<R>> {
    const work = () => this.#pglite._runExclusiveQuery(() => this.#execute<R>(text, values, inTransaction));
    return inTransaction ? work() : this.#pglite._runExclusiveTransaction(work);
  }

  async #execute<R>(
    text: string,
    values: readonly unknown[],
    inTransaction: boolean,
  ): Promise<PreparedResult<R>> {
    const statement = this.#prepared.get(text) ?? (await this.#prepare(text));
    const { serializers, parsers } = this.#pglite;
    const serialized = values.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = serializers[statement.parameterTypes[i] as number];
      return serialize ? (serialize(value) as string) : String(value);
    });
    const batch = concat([
      protocol.serialize.bind({ statement: statement.name, values: serialized }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    ]);
    try {
      // Inside a transaction the commit writes the files; outside, this statement is the unit.
      const { messages } = await this.#pglite.execProtocol(batch, { syncToFs: !inTransaction });
      const [result] = parse.parseResults(messages, parsers);
      return { rows: (result?.rows ?? []) as R[], affectedRows: result?.affectedRows };
    } catch (error) {
      // Parsed again (under the same name) on its next run.
      if ((error as { code?: string }).code === FEATURE_NOT_SUPPORTED) this.#prepared.delete(text);
      throw error;
    }
  }

  async #prepare(text: string): Promise<Prepared> {
    const name = this.#names.of(text) as string;
    // Closing a statement that does not exist is no error; one the schema changed under is replaced.
    const { messages } = await this.#pglite.execProtocol(
      concat([
        protocol.serialize.close({ type: 'S', name }),
        protocol.serialize.parse({ name, text }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(messages) };
    this.#prepared.set(text, statement);
    return statement;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

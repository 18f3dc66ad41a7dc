// Kysely over PGlite, the embedded store. PGlite is one connection, so a plain BEGIN … COMMIT would
// let any other query of the process (a pg-boss poll, another request) run inside the open
// transaction and be committed or rolled back with it. Here every Kysely transaction is a
// `PGlite.transaction()`, which holds PGlite's transaction lock until it ends: queries issued from
// elsewhere (through Kysely or through pg-boss's PGlite adapter) wait instead of joining it.
// The price: code inside a transaction must use its `trx`, never the outer `db`, or it waits on
// itself. That is the rule everywhere anyway (docs/architecture.md).
// Data statements run as named prepared statements (./pglite-prepared.ts), parsed once per instance.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import { PGliteStatements } from './pglite-prepared.ts';

type Outcome = 'commit' | 'rollback';

class PGliteConnection implements DatabaseConnection {
  readonly #pglite: PGlite;
  readonly #statements: PGliteStatements;
  #transaction: Transaction | undefined;
  #settle: ((outcome: Outcome) => void) | undefined;
  #finished: Promise<void> | undefined;

  constructor(pglite: PGlite, statements: PGliteStatements) {
    this.#pglite = pglite;
    this.#statements = statements;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const inTransaction = this.#transaction !== undefined;
    const result = this.#statements.handles(compiled.sql)
      ? await this.#statements.run<R>(compiled.sql, compiled.parameters, inTransaction)
      : await (this.#transaction ?? this.#pglite).query<R>(compiled.sql, [...compiled.parameters]);
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by PGlite; the store never streams.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The embedded store does not stream query results');
  }

  /** Opens a PGlite transaction and keeps it (and its lock) until commit or rollback. */
  async begin(): Promise<void> {
    const outcome = new Promise<Outcome>((resolve) => {
      this.#settle = resolve;
    });
    await new Promise<void>((ready, fail) => {
      this.#finished = this.#pglite.transaction(async (transaction) => {
        this.#transaction = transaction;
        ready();
        if ((await outcome) === 'rollback') await transaction.rollback();
      });
      this.#finished.catch(fail);
    });
  }

  async end(outcome: Outcome): Promise<void> {
    this.#settle?.(outcome);
    try {
      await this.#finished;
    } finally {
      this.#transaction = undefined;
      this.#settle = undefined;
      this.#finished = undefined;
    }
  }
}

class PGliteDriver implements Driver {
  readonly #pglite: PGlite;
  /** One set per instance: a PGlite instance is one backend session. */
  readonly #statements: PGliteStatements;

  constructor(pglite: PGlite, statements: PGliteStatements) {
    this.#pglite = pglite;
    this.#statements = statements;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PGliteConnection(this.#pglite, this.#statements);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).end('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).end('rollback');
  }

  async releaseConnection(): Promise<void> {}

  // The PGlite instance belongs to the store, which closes it.
  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  readonly #pglite: PGlite;
  readonly #statements: PGliteStatements;

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
    this.#statements = new PGliteStatements(pglite);
  }

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver() {
    return new PGliteDriver(this.#pglite, this.#statements);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}

// Hot queries built and compiled once per shape instead of on every call. Building a Kysely query
// clones its immutable node tree at every step: the projects list page (a JSON array over a sorted
// subquery with two counted subqueries) took about 40 µs of CPU to build and compile, a sixth of the
// whole request. A template builds its query once per shape with a marker in place of each value
// that varies, compiles it, and on each call only puts the call's values in the markers' places. The
// same text each time also keeps the prepared statement's name lookup cheap (./prepared-statements.ts).
//
// The template is built without the executor's plugins, which then see each execution once (the
// bench's and the tests' query counters), as for a query built on the spot; a plugin that changes
// the query gets that query compiled instead.
import { type Compilable, type CompiledQuery, createQueryId, type Kysely, type QueryResult } from 'kysely';

/** Stands for a value in the built query; it refuses to be read as anything but a parameter. */
class Marker {
  readonly key: string;

  constructor(key: string) {
    this.key = key;
  }

  toString(): never {
    throw new Error(`statement template: "${this.key}" may only be passed to the query as a value`);
  }

  valueOf(): never {
    return this.toString();
  }
}

export interface StatementTemplate<Shape, Values, Row> {
  execute(shape: Shape, values: Values): Promise<QueryResult<Row>>;
}

/** Each property read of it is the marker of that value. */
const markers = new Proxy({} as Record<string, Marker>, { get: (_, key) => new Marker(String(key)) });

/**
 * `build` makes the query of one shape (the choices that change its text, booleans or strings) from
 * `values` (what only changes its parameters), on the `db` it is given. It gets markers for the
 * values: it may hand them to Kysely as values, not compute with them or branch on them.
 */
export function statementTemplate<
  DB,
  Shape extends Record<string, boolean | string>,
  Values extends Record<string, unknown>,
  Row,
>(
  db: Kysely<DB>,
  build: (db: Kysely<DB>, shape: Shape, values: Values) => Compilable<Row>,
): StatementTemplate<Shape, Values, Row> {
  const unplugged = db.withoutPlugins();
  const compiled = new Map<string, CompiledQuery<Row>>();

  function compiledFor(shape: Shape): CompiledQuery<Row> {
    const id = JSON.stringify(shape);
    let query = compiled.get(id);
    if (!query) {
      query = build(unplugged, shape, markers as unknown as Values).compile();
      compiled.set(id, query);
    }
    return query;
  }

  function filled(query: CompiledQuery<Row>, values: Values): CompiledQuery<Row> {
    const parameters = query.parameters.map((p) => (p instanceof Marker ? values[p.key] : p));
    return { ...query, parameters };
  }

  return {
    execute(shape, values) {
      const template = compiledFor(shape);
      const executor = db.getExecutor();
      const queryId = createQueryId();
      const node = executor.transformQuery(template.query, queryId);
      const query =
        node === template.query ? { ...template, queryId } : executor.compileQuery<Row>(node, queryId);
      return executor.executeQuery<Row>(filled(query, values));
    },
  };
}

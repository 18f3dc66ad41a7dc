// `subset` of a bridge run (docs/contract.md §9.3), computed on the source, set-based: one key table per copied
// table collects the primary keys of the rows to copy, each pass one INSERT … SELECT joining a
// table to the key table of its neighbour. First the start rows (`where`, then `percent` of them at
// random); then, until nothing new is found, the rows of the copied tables that reference a kept
// row (children, recursively); then, until nothing new is found, the rows a kept row references
// (parents, recursively), which do not pull in their other children. Each pass adds only rows not
// yet kept, so cycles end. The copy then reads each table's rows whose key is in its key table.
//
// Key tables (RowFormat.subsetKeyTables): PostgreSQL's are temporary (no WAL, and the server drops
// them with the session even if this process dies); MySQL cannot name a temporary table twice in
// one statement, and each pass reads the table it adds to, so there they are plain tables of this
// service's own (docs/architecture.md: `_dbops_bak_`), named after the run, dropped after it.
//
// Passes that cannot find anything are not run (on a chain of N tables this is the difference
// between ~N and ~3N scans of the big tables): a pass along an edge runs again only when the key
// table it reads grew since it last ran, and a parent pass is skipped when every kept row of the
// child came from the child pass along that same key, whose rows' parents are kept by construction.
//
// Leaves read through (src/engine/bridge/subset-leaves.ts): a table that no copied table references, with no filter,
// whose kept rows can only come from one parent's key table that the parent closure cannot grow,
// gets no key table: its rows are read straight from the source as "the key is in that parent's key
// table", and any parent pass from it uses the same condition. The leaves of a schema are usually
// its biggest tables (order lines, events), and this saves the pass that would scan them only to
// collect keys, so that the copy scans each such table once.
import { createHash } from 'node:crypto';
import type { RowFormat, RowSession, SqlWriter } from '../../dialects/dialect.ts';
import { qualifiedTable } from '../../dialects/rows.ts';
import { displayName, type PlannedTable } from '../../engine/bridge/copy-plan.ts';
import { type Edge, mayGrowInParentClosure } from '../../engine/bridge/subset-leaves.ts';
import type { TableModel } from '../../engine/schema/model.ts';

/** The seed of a `percent` sample: the subset as asked, so the same request samples the same rows. */
function sampleSeed(request: SubsetRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([request.table, request.where ?? null, request.percent ?? null]))
    .digest('hex')
    .slice(0, 16);
}

export interface SubsetRequest {
  table: string;
  where?: string | undefined;
  percent?: number | undefined;
}

export interface Subset {
  /** The condition reading only the kept rows of a table. */
  whereOf(table: PlannedTable): string;
  /**
   * Rows kept per table that has a key table. A leaf read through its parent (see above) is not
   * counted before it is read: its kept rows are the rows the copy reads from it.
   */
  counts: Map<string, number>;
  /** The leaves read through their parent's key table. */
  readThrough: ReadonlySet<string>;
  /**
   * Rows a table is expected to give (progress): its count; for a leaf read through, its source
   * rows in the proportion of its parent's rows kept (`sourceRows`: the tables' row estimates).
   */
  estimate(table: PlannedTable, sourceRows: (table: PlannedTable) => number): number;
  drop(): Promise<void>;
}

export async function computeSubset(input: {
  session: RowSession;
  sql: SqlWriter;
  rows: Pick<RowFormat, 'sampleSql' | 'subsetKeyTables'>;
  tables: PlannedTable[];
  request: SubsetRequest;
  /** The tables with a filter of the request: never read through (their count is the subset's, not the filtered). */
  filtered: ReadonlySet<string>;
  runId: string;
  /** Ids of the bridge runs queued or running now: their key tables are not leftovers. */
  liveRunIds: string[];
}): Promise<Subset> {
  const { session, sql, tables, request } = input;
  const q = (name: string) => sql.quoteIdent(name);
  const keyOf = (t: PlannedTable) => t.source.primary_key!.columns;
  const temporary = input.rows.subsetKeyTables.kind === 'temporary';
  // Named after the run: `dbops_bridge_<run>_<n>` (temporary) or the service's own `bridge_<run>_<n>`.
  const keyTableName = (i: number) => `bridge_${input.runId.slice(0, 8)}_${i}`;
  const keyTable = new Map(
    tables.map(
      (t, i) => [t.name, temporary ? q(`dbops_${keyTableName(i)}`) : sql.ownTable(keyTableName(i))] as const,
    ),
  );
  const src = (t: TableModel) => qualifiedTable(q, t);
  const byName = new Map(tables.map((t) => [t.name, t]));
  const edges: Edge[] = tables.flatMap((child) =>
    child.source.foreign_keys.flatMap((fk) => {
      const parent = byName.get(
        displayName({ schema: fk.referenced_schema ?? child.source.schema, name: fk.referenced_table }),
      );
      return parent ? [{ child, parent, fk }] : [];
    }),
  );
  const start = byName.get(request.table)!;
  const referenced = new Set(edges.map((e) => e.parent.name));
  /** Leaves that may be read through a parent: decided after the child closure. */
  const leaves = new Set(
    tables
      .filter((t) => t !== start && !referenced.has(t.name) && !input.filtered.has(t.name))
      .map((t) => t.name),
  );
  /** Each leaf read through, with the one edge its rows come along (null: no parent kept anything). */
  const through = new Map<string, Edge | null>();

  const created: string[] = [];
  const drop = async () => {
    for (const table of created) await session.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
  };
  const notKept = (t: PlannedTable, alias: string) =>
    `NOT EXISTS (SELECT 1 FROM ${keyTable.get(t.name)} x WHERE ${keyOf(t)
      .map((c) => `x.${q(c)} = ${alias}.${q(c)}`)
      .join(' AND ')})`;
  const joinOn = (e: Edge) =>
    e.fk.columns.map((c, i) => `c.${q(c)} = p.${q(e.fk.referenced_columns[i]!)}`).join(' AND ');
  /**
   * For a key on the parent's primary key (the usual case), the child column of each primary key
   * column: the closure then joins the key tables straight to the child, without the parent.
   */
  const direct = (e: Edge): string[] | null => {
    const key = keyOf(e.parent);
    if (key.length !== e.fk.columns.length) return null;
    const mapped = key.map((k) => e.fk.columns[e.fk.referenced_columns.indexOf(k)]);
    return mapped.every((c) => c !== undefined) ? (mapped as string[]) : null;
  };
  const keptBy = (t: PlannedTable, alias: string) =>
    keyOf(t)
      .map((c) => `k.${q(c)} = ${alias}.${q(c)}`)
      .join(' AND ');
  /** A leaf's rows read through its edge: those whose key is in the parent's key table. */
  const throughCondition = (e: Edge | null, alias: string | null) => {
    if (e === null) return '1 = 0';
    const column = (c: string) => (alias === null ? q(c) : `${alias}.${q(c)}`);
    const columns = direct(e);
    if (columns)
      return `(${columns.map(column).join(', ')}) IN (SELECT ${keyOf(e.parent)
        .map((k) => `kp.${q(k)}`)
        .join(', ')} FROM ${keyTable.get(e.parent.name)} kp)`;
    return `(${e.fk.columns.map(column).join(', ')}) IN (SELECT ${e.fk.referenced_columns
      .map((c) => `pp.${q(c)}`)
      .join(', ')} FROM ${src(e.parent.source)} pp JOIN ${keyTable.get(e.parent.name)} kp ON ${keyOf(e.parent)
      .map((k) => `kp.${q(k)} = pp.${q(k)}`)
      .join(' AND ')})`;
  };
  /** How a parent pass keeps to the child's kept rows (aliased `c`): a join to its key table, or its leaf condition. */
  const keptChild = (e: Edge) =>
    through.has(e.child.name)
      ? { join: '', where: [throughCondition(through.get(e.child.name)!, 'c')] }
      : { join: `JOIN ${keyTable.get(e.child.name)} k ON ${keptBy(e.child, 'c')} `, where: [] };
  const analyze = async (t: PlannedTable) => {
    const statement = sql.analyzeSql(keyTable.get(t.name)!);
    if (statement) await session.query(statement);
  };
  const createKeyTable = async (t: PlannedTable) => {
    const name = keyTable.get(t.name)!;
    await session.query(`DROP TABLE IF EXISTS ${name}`);
    await session.query(
      `CREATE ${temporary ? 'TEMPORARY ' : ''}TABLE ${name} AS SELECT ${keyOf(t).map(q).join(', ')} FROM ${src(t.source)} WHERE 1 = 0`,
    );
    created.push(name);
    // Each pass looks kept keys up: without an index the closure would be quadratic.
    await session.query(`ALTER TABLE ${name} ADD PRIMARY KEY (${keyOf(t).map(q).join(', ')})`);
  };
  const childPass = (e: Edge) => {
    const columns = direct(e);
    // Joined on the parent key table's whole primary key, a child row matches at most once:
    // no DISTINCT (a sort or hash of every new key) is needed.
    const into = `INSERT INTO ${keyTable.get(e.child.name)} (${keyOf(e.child).map(q).join(', ')}) SELECT ${
      columns ? '' : 'DISTINCT '
    }${keyOf(e.child)
      .map((c) => `c.${q(c)}`)
      .join(', ')} FROM ${src(e.child.source)} c `;
    const join = columns
      ? `JOIN ${keyTable.get(e.parent.name)} k ON ${keyOf(e.parent)
          .map((k, i) => `k.${q(k)} = c.${q(columns[i]!)}`)
          .join(' AND ')} `
      : `JOIN ${src(e.parent.source)} p ON ${joinOn(e)} JOIN ${keyTable.get(e.parent.name)} k ON ${keptBy(e.parent, 'p')} `;
    return `${into}${join}WHERE ${notKept(e.child, 'c')}`;
  };
  const parentPass = (e: Edge) => {
    const columns = direct(e);
    const parentKey = keyOf(e.parent);
    const child = keptChild(e);
    if (columns)
      return (
        `INSERT INTO ${keyTable.get(e.parent.name)} (${parentKey.map(q).join(', ')}) SELECT DISTINCT ${columns
          .map((c) => `c.${q(c)}`)
          .join(', ')} FROM ${src(e.child.source)} c ${child.join}` +
        `WHERE ${[
          ...child.where,
          ...columns.map((c) => `c.${q(c)} IS NOT NULL`),
          `NOT EXISTS (SELECT 1 FROM ${keyTable.get(e.parent.name)} x WHERE ${parentKey
            .map((k, i) => `x.${q(k)} = c.${q(columns[i]!)}`)
            .join(' AND ')})`,
        ].join(' AND ')}`
      );
    return (
      `INSERT INTO ${keyTable.get(e.parent.name)} (${parentKey.map(q).join(', ')}) SELECT DISTINCT ${parentKey
        .map((c) => `p.${q(c)}`)
        .join(', ')} FROM ${src(e.parent.source)} p ` +
      `JOIN ${src(e.child.source)} c ON ${joinOn(e)} ${child.join}WHERE ${[...child.where, notKept(e.parent, 'p')].join(' AND ')}`
    );
  };

  try {
    if (input.rows.subsetKeyTables.kind === 'own') {
      for (const setup of sql.ownTablesSetup()) await session.query(setup);
      await dropLeftovers(session, sql, input.rows.subsetKeyTables.leftoversSql, input.liveRunIds);
    }
    for (const t of tables) if (!leaves.has(t.name)) await createKeyTable(t);
    const conditions = [
      ...(request.where === undefined ? [] : [`(${request.where})`]),
      ...(request.percent === undefined || request.percent >= 100
        ? []
        : [`${input.rows.sampleSql(keyOf(start).map(q), sampleSeed(request))} < ${request.percent / 100}`]),
    ];
    await session.query(
      `INSERT INTO ${keyTable.get(start.name)} (${keyOf(start).map(q).join(', ')}) SELECT ${keyOf(start)
        .map(q)
        .join(
          ', ',
        )} FROM ${src(start.source)}${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}`,
    );
    await analyze(start);
    /** Bumped each time a table's key table grows: a pass reading it is worth running again. */
    const version = new Map(tables.map((t) => [t.name, 0]));
    version.set(start.name, 1);
    /** How each table's kept rows came in: `start`, or the pass (`child:`/`parent:` + edge index). */
    const origins = new Map<string, Set<string>>(tables.map((t) => [t.name, new Set<string>()]));
    origins.get(start.name)!.add('start');
    /** Runs one pass; when it kept new rows, their table's readers are due again. */
    const runPass = async (statement: string, into: PlannedTable, origin: string) => {
      if ((await session.query(statement)).affectedRows === 0) return false;
      await analyze(into);
      version.set(into.name, version.get(into.name)! + 1);
      origins.get(into.name)!.add(origin);
      return true;
    };
    /**
     * Runs `pass` over the edges until nothing new is kept; an edge runs only when the key table it
     * reads from grew since it last ran (and `needed` says it can find something).
     */
    const closure = async (
      kind: 'child' | 'parent',
      from: (e: Edge) => PlannedTable,
      to: (e: Edge) => PlannedTable,
      pass: (e: Edge) => string,
      needed: (e: Edge, index: number) => boolean,
    ) => {
      const seen = edges.map(() => 0);
      for (let grew = true; grew; ) {
        grew = false;
        for (const [index, e] of edges.entries()) {
          const current = version.get(from(e).name)!;
          if (current === seen[index]) continue;
          seen[index] = current;
          if (!needed(e, index)) continue;
          if (await runPass(pass(e), to(e), `${kind}:${index}`)) grew = true;
        }
      }
    };
    // Children of kept rows, recursively; the leaves wait (nothing reads their keys in this closure).
    await closure(
      'child',
      (e) => e.parent,
      (e) => e.child,
      childPass,
      (e) => !leaves.has(e.child.name),
    );
    // Which leaves are read through: one parent, which the parent closure cannot grow (its later
    // rows are parents pulled in, whose other children must not come with them).
    const feeding = (leaf: string) =>
      [...edges.entries()].filter(([, e]) => e.child.name === leaf && version.get(e.parent.name)! > 0);
    for (const leaf of leaves) {
      const into = feeding(leaf);
      for (const [index] of into) origins.get(leaf)!.add(`child:${index}`);
      if (into.length <= 1) through.set(leaf, into[0]?.[1] ?? null);
    }
    const growing = mayGrowInParentClosure(edges, origins);
    for (const [leaf, e] of through) if (e !== null && growing.has(e.parent.name)) through.delete(leaf);
    for (const leaf of leaves) {
      const table = byName.get(leaf)!;
      if (through.has(leaf)) {
        // Nothing writes its keys: the parent closure reads it once, through its condition.
        version.set(leaf, through.get(leaf) === null ? 0 : 1);
        continue;
      }
      // Its keys, from each parent that kept rows; it references no copied table's rows, so one
      // pass per edge is its whole child closure.
      await createKeyTable(table);
      origins.get(leaf)!.clear();
      for (const [index, e] of feeding(leaf)) await runPass(childPass(e), table, `child:${index}`);
    }
    // Parents of kept rows, recursively; they do not bring their other children.
    await closure(
      'parent',
      (e) => e.child,
      (e) => e.parent,
      parentPass,
      (e, index) => [...origins.get(e.child.name)!].some((origin) => origin !== `child:${index}`),
    );
    const keyed = tables.filter((t) => !through.has(t.name));
    const counts = new Map<string, number>();
    if (keyed.length > 0) {
      const { rows } = await session.query(
        `SELECT ${keyed.map((t, i) => `(SELECT COUNT(*) FROM ${keyTable.get(t.name)}) AS n${i}`).join(', ')}`,
      );
      const row = rows[0] as Record<string, unknown>;
      for (const [i, t] of keyed.entries()) counts.set(t.name, Number(row[`n${i}`]));
    }
    return {
      counts,
      readThrough: new Set(through.keys()),
      whereOf: (t) =>
        through.has(t.name)
          ? throughCondition(through.get(t.name)!, null)
          : `(${keyOf(t).map(q).join(', ')}) IN (SELECT ${keyOf(t).map(q).join(', ')} FROM ${keyTable.get(t.name)})`,
      estimate(t, sourceRows) {
        const counted = counts.get(t.name);
        if (counted !== undefined) return counted;
        const e = through.get(t.name);
        if (!e) return 0;
        const parentRows = sourceRows(e.parent);
        const share = parentRows > 0 ? Math.min(1, counts.get(e.parent.name)! / parentRows) : 1;
        return Math.round(sourceRows(t) * share);
      },
      drop,
    };
  } catch (error) {
    await drop();
    throw error;
  }
}

/**
 * Key tables of runs that are no longer queued or running (a process killed mid-run leaves its
 * plain key tables behind; temporary ones go with the session): dropped before a new subset.
 * Their names carry the first 8 characters of the run's id.
 */
async function dropLeftovers(
  session: RowSession,
  sql: SqlWriter,
  leftoversSql: string,
  liveRunIds: string[],
): Promise<void> {
  const live = new Set(liveRunIds.map((id) => id.slice(0, 8)));
  const { rows } = await session.query(leftoversSql);
  for (const { name } of rows as { name: string }[]) {
    const run = /bridge_([0-9a-f]{8})_\d+$/.exec(name)?.[1];
    if (run !== undefined && !live.has(run))
      await session.query(`DROP TABLE IF EXISTS ${sql.quoteIdent(name)}`);
  }
}

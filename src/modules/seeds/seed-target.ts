// What a seed run or preview reads of the target before it writes: which tables hold rows, the
// current maximum of every key the service writes (its keys go above it), the existing rows of
// every parent a reference draws from (read once, through the row pipeline, so their text is the
// text the run writes), and the existing values of unique keys the run must not repeat.
import type { TargetHandle } from '../../dialects/dialect.ts';
import { qualifiedTable } from '../../dialects/rows.ts';
import { decodeRow } from '../../engine/rows/copy-text.ts';
import { type SchemaModel, type TableModel, tableKey } from '../../engine/schema/model.ts';
import type { PlannedTable, SeedPlan } from '../../engine/seed/seed-plan.ts';
import { KeyPool, poolKey, type TableInputs } from '../../engine/seed/table-rows.ts';

/** The keys (`schema.table`) of the tables that hold at least one row. */
export async function populatedTables(handle: TargetHandle): Promise<Set<string>> {
  const stats = await handle.tableStats();
  return new Set(stats.filter((s) => s.populated).map((s) => tableKey(s)));
}

/**
 * Rows of `columns` of a table as the row pipeline's texts, at most `limit`, through a session of
 * its own: a read stopped early leaves its session unusable (an open COPY), so it is closed after.
 */
async function readTexts(
  handle: TargetHandle,
  table: TableModel,
  columns: string[],
  limit: number,
): Promise<(string | null)[][]> {
  const dialect = handle.sql;
  const kinds = columns.map((c) =>
    dialect.rows.valueKind(table.columns.find((x) => x.name === c)?.type ?? 'text'),
  );
  const out: (string | null)[][] = [];
  const session = await handle.rowSession();
  try {
    for await (const batch of session.readRows({ schema: table.schema, name: table.name, columns, kinds })) {
      for (const line of batch.data.toString('utf8').split('\n')) {
        if (line === '' || out.length >= limit) continue;
        out.push(decodeRow(line));
      }
      if (out.length >= limit) break;
    }
  } finally {
    await session.close();
  }
  return out;
}

export interface SeedInputs {
  /** Per planned table, what its producer needs. */
  inputs: Map<string, TableInputs>;
  pools: Map<string, KeyPool>;
}

/** The most existing parent rows a reference draws from (more are not read). */
export const EXISTING_PARENT_ROWS = 1_000_000;

/**
 * Everything the run needs of the target before it writes. Each read takes a session of its own and
 * ends it before the next (never two at once): a caller holding a session of the same pool while
 * this reads could wait for a session only another such caller can free.
 */
export async function readSeedInputs(
  handle: TargetHandle,
  model: SchemaModel,
  plan: SeedPlan,
  seed: number,
  populated: Set<string>,
  options: { existingLimit?: number } = {},
): Promise<SeedInputs> {
  const limit = options.existingLimit ?? EXISTING_PARENT_ROWS;
  const tables = new Map(model.tables.map((t) => [tableKey(t), t]));
  const pools = new Map<string, KeyPool>();
  const recorded = new Map<string, string[][]>();
  const record = (table: string, columns: string[]) => {
    const lists = recorded.get(table) ?? [];
    if (!lists.some((l) => l.join('\u0000') === columns.join('\u0000'))) lists.push(columns);
    recorded.set(table, lists);
  };
  for (const planned of plan.tables) {
    for (const r of planned.references) {
      const key = poolKey(r.parent, r.fk.referenced_columns);
      if (!pools.has(key)) {
        const parent = tables.get(r.parent) as TableModel;
        const existing = populated.has(r.parent)
          ? await readTexts(handle, parent, r.fk.referenced_columns, limit)
          : [];
        pools.set(key, new KeyPool(existing.filter((row) => row.every((v) => v !== null))));
      }
      record(r.parent, r.fk.referenced_columns);
    }
    // A table whose references are closed by an UPDATE is joined on its primary key then.
    if (planned.references.some((r) => r.deferred)) {
      const key = poolKey(planned.key, planned.primaryKey);
      if (!pools.has(key)) pools.set(key, new KeyPool([]));
      record(planned.key, planned.primaryKey);
    }
  }
  const keyBases = await keyMaxima(handle, plan, populated);
  const inputs = new Map<string, TableInputs>();
  for (const planned of plan.tables) {
    inputs.set(planned.key, {
      seed,
      locale: plan.locale,
      keyBase: keyBases.get(planned.key) ?? new Map(),
      pools,
      recorded: recorded.get(planned.key) ?? [],
      existingUnique: populated.has(planned.key) ? await existingUnique(handle, planned, limit) : undefined,
    });
  }
  return { inputs, pools };
}

/** Per planned table, the current maximum of each key column the service writes (0 when empty). */
async function keyMaxima(
  handle: TargetHandle,
  plan: SeedPlan,
  populated: Set<string>,
): Promise<Map<string, Map<string, bigint>>> {
  const q = (name: string) => handle.sql.quoteIdent(name);
  const out = new Map<string, Map<string, bigint>>();
  const session = await handle.rowSession();
  try {
    for (const planned of plan.tables) {
      const keyBase = new Map<string, bigint>();
      for (const c of planned.columns.filter((x) => x.generator.kind === 'key')) {
        if (!populated.has(planned.key)) {
          keyBase.set(c.name, 0n);
          continue;
        }
        const { rows } = await session.query(
          `SELECT MAX(${q(c.name)}) AS top FROM ${qualifiedTable(q, planned.table)}`,
        );
        const top = rows[0]?.top;
        keyBase.set(c.name, top === null || top === undefined ? 0n : BigInt(String(top)));
      }
      out.set(planned.key, keyBase);
    }
  } finally {
    await session.close();
  }
  return out;
}

/** The values of the table's unique keys that are already there (keys the service writes excepted). */
async function existingUnique(
  handle: TargetHandle,
  planned: PlannedTable,
  limit: number,
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const written = new Map(planned.columns.map((c) => [c.name, c.generator.kind]));
  for (const key of planned.uniqueKeys) {
    if (key.columns.some((c) => written.get(c) === 'key' || !written.has(c))) continue;
    const rows = await readTexts(handle, planned.table, key.columns, limit);
    out.set(key.name, new Set(rows.filter((r) => r.every((v) => v !== null)).map((r) => r.join('\u0000'))));
  }
  return out;
}

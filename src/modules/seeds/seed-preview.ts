// The preview (docs/contract.md §9.1): the first rows (up to 10) a run would write to each table, nothing
// written, at most 1,000 rows and 1 MiB in all (past that, `truncated` and the rest left out). Keys start above the tables' current maximum as a run's would; a reference to a parent
// of the scenario computes that parent's row on demand, so the preview does not produce whole
// tables. Values are shown as JSON: numbers and booleans as such, the rest as the text written.
import type { TargetHandle } from '../../dialects/dialect.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { PlannedTable, SeedPlan } from '../../engine/seed/seed-plan.ts';
import { deferredValues, poolKey, tableProducer } from '../../engine/seed/table-rows.ts';
import { populatedTables, readSeedInputs } from './seed-target.ts';

export const PREVIEW_ROWS = 10;
/** Rows and bytes (UTF-8 JSON of the values) one preview shows at most, over all its tables (docs/contract.md §9.1). */
export const PREVIEW_MAX_ROWS = 1000;
export const PREVIEW_MAX_BYTES = 1024 * 1024;
/** Existing parent rows a preview reads at most. */
const PREVIEW_EXISTING = 10_000;

function asJson(planned: PlannedTable, column: string, text: string | null): unknown {
  if (text === null) return null;
  const family = planned.seedColumns.get(column)?.family;
  if (family === 'boolean') return text === 't' || text === '1' || text === 'true';
  if ((family === 'integer' || family === 'float') && Number.isSafeInteger(Number(text))) return Number(text);
  if (family === 'float') return Number(text);
  return text;
}

export async function previewPlan(
  handle: TargetHandle,
  model: SchemaModel,
  plan: SeedPlan,
  seed: number,
): Promise<{ tables: { table: string; rows: Record<string, unknown>[] }[]; truncated: boolean }> {
  const populated = await populatedTables(handle);
  const seeded = await readSeedInputs(handle, model, plan, seed, populated, {
    existingLimit: PREVIEW_EXISTING,
  });
  const session = await handle.rowSession();
  try {
    const producers = new Map(
      plan.tables.map((p) => [p.key, tableProducer(p, seeded.inputs.get(p.key)!)] as const),
    );
    // Parents' rows on demand: a reference may pick any generated row, not only the first ten.
    for (const p of plan.tables)
      for (const columns of seeded.inputs.get(p.key)!.recorded) {
        const pool = seeded.pools.get(poolKey(p.key, columns));
        const producer = producers.get(p.key)!;
        const at = columns.map((c) => producer.columns.indexOf(c));
        if (
          pool &&
          !(columns.length === 1 && p.columns.find((c) => c.name === columns[0])?.generator.kind === 'key')
        )
          pool.setLazy(p.rows, (i) => {
            const row = producer.row(i);
            return at.map((j) => (j >= 0 ? (row[j] ?? null) : null));
          });
      }
    // Within the preview's bounds: once either is reached, the later rows and tables are left out.
    let rowsLeft = PREVIEW_MAX_ROWS;
    let bytesLeft = PREVIEW_MAX_BYTES;
    let truncated = false;
    const tables = plan.tables.map((p) => {
      const producer = producers.get(p.key)!;
      // References a cycle defers are filled by the run's UPDATE: shown with their final values.
      const deferred = p.references.filter((r) => r.deferred).flatMap((r) => r.fk.columns);
      const closing = deferred.length > 0 ? deferredValues(p, seeded.inputs.get(p.key)!) : null;
      const rows: Record<string, unknown>[] = [];
      for (let i = 0; i < Math.min(PREVIEW_ROWS, p.rows); i++) {
        if (rowsLeft === 0 || bytesLeft <= 0) {
          truncated = true;
          break;
        }
        const values = producer.row(i);
        if (closing) {
          const filled = closing(i);
          deferred.forEach((c, j) => {
            values[producer.columns.indexOf(c)] = filled[j] ?? null;
          });
        }
        const row = Object.fromEntries(producer.columns.map((c, j) => [c, asJson(p, c, values[j] ?? null)]));
        const bytes = Buffer.byteLength(JSON.stringify(row));
        if (bytes > bytesLeft) {
          truncated = true;
          bytesLeft = 0;
          break;
        }
        rowsLeft--;
        bytesLeft -= bytes;
        rows.push(row);
      }
      return { table: p.key, rows };
    });
    return { tables, truncated };
  } finally {
    await session.close();
  }
}

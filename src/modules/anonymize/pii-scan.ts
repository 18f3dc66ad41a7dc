// The PII scan (docs/contract.md §9.2): every column whose name looks personal, and every text or JSON column
// whose sampled values do (at most SAMPLE_LIMIT rows a table, one SELECT a table), with whether a
// rule of the config covers it, its own or one taken through a foreign key. Only categories leave:
// never a sampled value.
import { columnShape } from '../../engine/anonymize/column-type.ts';
import { categoryByName, categoryByValues, type PiiCategory } from '../../engine/anonymize/pii.ts';
import type { SchemaModel, TableModel } from '../../engine/schema/model.ts';
import { tableKey } from '../../engine/schema/model.ts';
import type { AnonymizeConfig, Connection } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { SAMPLE_LIMIT, sampleTables } from './target-sample.ts';

export interface ScannedColumn {
  table: string;
  column: string;
  category: PiiCategory;
  evidence: 'name' | 'values';
  covered: boolean;
}

export async function scanColumns(
  connections: Pick<ConnectionsService, 'withTarget' | 'dialectOf'>,
  connection: Connection,
  model: SchemaModel,
  config: Pick<AnonymizeConfig, 'rules' | 'propagated'>,
): Promise<ScannedColumn[]> {
  const covered = new Set([...config.rules, ...config.propagated].map((r) => `${r.table}\u0000${r.column}`));
  const found: ScannedColumn[] = [];
  const reads: { table: TableModel; columns: string[] }[] = [];
  for (const table of model.tables) {
    const sampled: string[] = [];
    for (const column of table.columns) {
      if (column.generated) continue;
      const byName = categoryByName(column.name, table.name);
      if (byName) {
        found.push({
          table: tableKey(table),
          column: column.name,
          category: byName,
          evidence: 'name',
          covered: false,
        });
        continue;
      }
      const family = columnShape(column.type).family;
      if (family === 'text' || family === 'json') sampled.push(column.name);
    }
    if (sampled.length > 0) reads.push({ table, columns: sampled });
  }
  const samples = reads.length > 0 ? await sampleTables(connections, connection, reads, SAMPLE_LIMIT) : [];
  reads.forEach(({ table, columns }, i) => {
    const rows = samples[i] ?? [];
    for (const column of columns) {
      // JSON documents are searched as their text: personal data inside one is free text to mask.
      const values = rows.map((row) => {
        const v = row[column];
        return v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v;
      });
      const category = categoryByValues(values);
      if (category)
        found.push({ table: tableKey(table), column, category, evidence: 'values', covered: false });
    }
  });
  for (const entry of found) entry.covered = covered.has(`${entry.table}\u0000${entry.column}`);
  return found.sort((a, b) => (a.table === b.table ? 0 : a.table < b.table ? -1 : 1));
}

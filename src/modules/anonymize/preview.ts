// The preview (docs/contract.md §9.2): for each rule, a few rows of its column as they are and as the run would
// write them, with the config's key; nothing is written. Shuffle permutes within the sample, by the
// rows' keys, as the bridge does within a batch.
import { columnShape } from '../../engine/anonymize/column-type.ts';
import { compileTransformer } from '../../engine/anonymize/compile.ts';
import type { ConfigRule } from '../../engine/anonymize/config-check.ts';
import { canonicalJson } from '../../engine/anonymize/keyed.ts';
import { shuffleBatch, shuffleSalt } from '../../engine/anonymize/shuffle.ts';
import { findTable, rowKeys } from '../../engine/patch/rollback-key.ts';
import type { SchemaModel, TableModel } from '../../engine/schema/model.ts';
import type { Connection } from '../../store/tables.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import { sampleTables, toJsonValue } from './target-sample.ts';

export interface PreviewSample {
  table: string;
  column: string;
  before: unknown[];
  after: unknown[];
}

export async function previewRules(
  connections: Pick<ConnectionsService, 'withTarget' | 'dialectOf'>,
  connection: Connection,
  model: SchemaModel,
  rules: readonly ConfigRule[],
  key: Buffer,
  rows: number,
): Promise<PreviewSample[]> {
  // The schema may have changed since the config was saved: rules whose column is gone are skipped
  // here (a run checks them again and refuses).
  const located = rules.flatMap((rule) => {
    const table = findTable(model, rule.table);
    const column = table?.columns.find((c) => c.name === rule.column);
    return table && column ? [{ rule, table, column, rowKey: rowKeys(table)[0] ?? [] }] : [];
  });
  const reads = located.map(({ table, column, rowKey }) => ({
    table: table as TableModel,
    columns: [...new Set([...rowKey, column.name])],
    notNull: column.name,
  }));
  const samples = reads.length > 0 ? await sampleTables(connections, connection, reads, rows) : [];
  return located.map(({ rule, column, rowKey }, i) => {
    const sample = samples[i] ?? [];
    const before = sample.map((row) => row[column.name]);
    let after: unknown[];
    if (rule.transformer === 'shuffle') {
      const keys = sample.map((row) => canonicalJson(rowKey.map((k) => toJsonValue(row[k]))));
      after = shuffleBatch(shuffleSalt(key), before, keys);
    } else {
      const apply = compileTransformer(rule, columnShape(column.type, column.nullable), key);
      after = before.map(apply);
    }
    return {
      table: rule.table,
      column: rule.column,
      before: before.map(toJsonValue),
      after: after.map(toJsonValue),
    };
  });
}

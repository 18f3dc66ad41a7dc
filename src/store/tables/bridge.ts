// Bridge runs (src/modules/bridge): the tables each run finished loading.
import type { ColumnType } from 'kysely';
import type { Timestamp } from './columns.ts';

export interface BridgeTableLoadsTable {
  run_id: string;
  table_name: string;
  rows: ColumnType<string, number, number>;
  carried_over: boolean;
  finished_at: Timestamp;
}

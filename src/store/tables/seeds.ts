// Seed scenarios (src/modules/seeds).
import type { ColumnType } from 'kysely';
import type { SeedDefinition } from '../../engine/seed/definition.ts';
import type { Json, Timestamp } from './columns.ts';

export interface SeedScenariosTable {
  id: string;
  org_id: string;
  project_id: string;
  connection_id: string;
  name: string;
  definition: Json<SeedDefinition>;
  /** bigint: the drivers answer text, the service writes a number. */
  seed: ColumnType<string | number, number, number>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

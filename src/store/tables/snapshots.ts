// Schema snapshots (src/modules/snapshots).
import type { Generated } from 'kysely';
import type { Json, Timestamp } from './columns.ts';

export interface SnapshotsTable {
  id: string;
  org_id: string;
  connection_id: string;
  taken_at: Timestamp;
  /** SHA-256 (hex) of the canonical JSON of the model (src/engine/schema/hash.ts). */
  schema_hash: string;
  /** The introspected SchemaModel (src/engine/schema/model.ts), as JSON. */
  schema_json: Json<unknown>;
  is_baseline: Generated<boolean>;
}

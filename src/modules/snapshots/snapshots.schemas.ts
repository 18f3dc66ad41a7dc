import { Type } from 'typebox';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { OptionalDefaults, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { Snapshot } from '../../store/tables.ts';
import { SchemaModelSchema } from '../connections/schema-model.schemas.ts';

const SnapshotFields = {
  id: Uuid,
  connection_id: Uuid,
  taken_at: Timestamp,
  schema_hash: Type.String({
    description: 'SHA-256 (hex) of the canonical JSON of the schema: equal schemas hash the same',
  }),
  is_baseline: Type.Boolean({ description: 'The reference of drift detection; one per connection at most' }),
};

export const SnapshotSchema = Type.Object(
  { ...SnapshotFields, schema_json: SchemaModelSchema },
  { title: 'Snapshot' },
);

export const SnapshotSummarySchema = Type.Object(SnapshotFields, {
  title: 'SnapshotSummary',
  description: 'A snapshot without its schema (GET /snapshots/{id} has it)',
});

export const ConnectionParams = Type.Object({ cid: Uuid });

export const TakeSnapshotQuery = OptionalDefaults(
  Type.Object({
    baseline: Type.Boolean({
      default: false,
      description:
        'Make this snapshot the baseline of the connection (the previous one stops being it). ' +
        'Needs the project admin role: moving the baseline hides the drift it had.',
    }),
  }),
);

export function toSnapshotSummary(snapshot: Omit<Snapshot, 'schema_json'>) {
  return {
    id: snapshot.id,
    connection_id: snapshot.connection_id,
    taken_at: toTimestamp(snapshot.taken_at),
    schema_hash: snapshot.schema_hash,
    is_baseline: snapshot.is_baseline,
  };
}

export function toSnapshotResponse(snapshot: Snapshot) {
  return { ...toSnapshotSummary(snapshot), schema_json: snapshot.schema_json as SchemaModel };
}

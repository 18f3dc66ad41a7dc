// The parameters of a `bridge_run`: what the service checked and the approval was bound to, and
// what the run (bridge-run.ts) works from.
import { type Static, Type } from 'typebox';
import { StringEnum, Uuid } from '../../http/schemas.ts';

/** What the run works from: the request as checked, with its defaults filled in. */
export const BridgeParams = Type.Object({
  source_connection_id: Uuid,
  target_connection_id: Uuid,
  tables: Type.Optional(Type.Array(Type.String())),
  mode: StringEnum(['replace', 'append', 'upsert'] as const),
  filters: Type.Optional(Type.Record(Type.String(), Type.String())),
  subset: Type.Optional(
    Type.Object({
      table: Type.String(),
      where: Type.Optional(Type.String()),
      percent: Type.Optional(Type.Number()),
    }),
  ),
  /**
   * The filters and the subset's condition as the copy writes them into its reads: written back
   * from their checked parse (engine/bridge/filter-check.ts), never the text received.
   */
  filter_sql: Type.Optional(Type.Record(Type.String(), Type.String())),
  subset_where_sql: Type.Optional(Type.String()),
  /** The source's filter reading (MySQL sql_mode) they were parsed under; a run under another stops. */
  source_filter_mode: Type.Optional(Type.String()),
  create_tables: Type.Boolean(),
  /** The anonymization config applied in flight, and what of it the request was checked and approved with. */
  anonymize: Type.Optional(Type.Object({ config_id: Uuid, binding: Type.String() })),
  source_schema_hash: Type.String(),
  target_schema_hash: Type.String(),
});
export type BridgeParams = Static<typeof BridgeParams>;

// What the two patch run handlers (patch-execute.ts, patch-rollback.ts) share: their
// dependencies, their parameters, and the refusal of a patch the schema no longer fits.
import { type Static, Type } from 'typebox';
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import { Uuid } from '../../http/schemas.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import type { SnapshotAfterPatch } from '../snapshots/snapshot-after-patch.ts';

export interface PatchRunDeps {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById' | 'dialectOf'>;
  snapshotAfterPatch: SnapshotAfterPatch;
  now: () => Date;
  statementTimeoutMs: number;
}

/**
 * What the service asked a patch run to do (patches.service.ts), and the approval was bound to.
 * `target_schema_hash` is absent only on runs requested before it was recorded.
 */
const PatchRunCommon = {
  patch_id: Uuid,
  connection_id: Uuid,
  target_schema_hash: Type.Optional(Type.String()),
};
export const PatchExecuteParams = Type.Object({
  ...PatchRunCommon,
  expected_rows: Type.Optional(Type.Integer({ minimum: 0 })),
  allow_irreversible: Type.Optional(Type.Boolean()),
});
export const PatchRollbackParams = Type.Object({ ...PatchRunCommon, force: Type.Optional(Type.Boolean()) });

/** The patch cannot run as approved: a table is gone, or a statement lost its rollback key. */
export class PatchNoLongerFits extends Error {}

/**
 * Refuses to go on when the target's schema is not the one the run was requested (and approved)
 * against: the approval was bound to it. Runs requested before the hash was recorded pass.
 */
export function assertSchemaAsRequested(
  params: Pick<Static<typeof PatchExecuteParams>, 'target_schema_hash'>,
  model: SchemaModel,
): void {
  const expected = params.target_schema_hash;
  if (expected !== undefined && schemaHash(model) !== expected)
    throw new PatchNoLongerFits(
      "The connection's schema changed since this run was requested (and approved against it): request it again",
    );
}

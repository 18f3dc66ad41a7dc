// What the two patch run handlers (patch-execute.ts, patch-rollback.ts) share: their
// dependencies, and the refusal of a patch the schema no longer fits.
import { schemaHash } from '../../engine/schema/hash.ts';
import type { SchemaModel } from '../../engine/schema/model.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectionsService } from '../connections/connections.service.ts';
import type { SnapshotAfterPatch } from '../snapshots/snapshot-after-patch.ts';

export interface PatchRunDeps {
  db: Db;
  connections: Pick<ConnectionsService, 'withTarget' | 'findById'>;
  snapshotAfterPatch: SnapshotAfterPatch;
  now: () => Date;
  statementTimeoutMs: number;
}

/** The patch cannot run as approved: a table is gone, or a statement lost its rollback key. */
export class PatchNoLongerFits extends Error {}

/**
 * Refuses to go on when the target's schema is not the one the run was requested (and approved)
 * against: the approval was bound to it. Runs requested before the hash was recorded pass.
 */
export function assertSchemaAsRequested(params: unknown, model: SchemaModel): void {
  const expected = (params as { target_schema_hash?: string }).target_schema_hash;
  if (expected !== undefined && schemaHash(model) !== expected)
    throw new PatchNoLongerFits(
      "The connection's schema changed since this run was requested (and approved against it): request it again",
    );
}

// What the two patch run handlers (patch-execute.ts, patch-rollback.ts) share: their
// dependencies, and the refusal of a patch the schema no longer fits.
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

// A snapshot after every successful patch execution (docs/contract.md §6, fixed), for the patches module to call
// once a patch has committed: the connection's history then has its schema as of each change the
// service made. A patch changes data, not schema, so this snapshot is never the baseline and
// raises no drift by itself; and a target that fails now must not turn a committed patch into a
// failed run, so a failure is logged and answered with null.

import type { SystemActor } from '../../core/actors.ts';
import type { Snapshot } from '../../store/tables.ts';
import type { SnapshotsService } from './snapshots.service.ts';

const PATCH_ACTOR: SystemActor = { principal: null, system: 'patch_execute', ip: 'local', userAgent: null };

export interface PatchSnapshotLogger {
  warn(obj: object, msg: string): void;
}

export type SnapshotAfterPatch = (connectionId: string, runId: string) => Promise<Snapshot | null>;

export function createSnapshotAfterPatch(deps: {
  snapshots: Pick<SnapshotsService, 'takeSnapshot'>;
  logger: PatchSnapshotLogger;
}): SnapshotAfterPatch {
  const { snapshots, logger } = deps;
  return async (connectionId, runId) => {
    try {
      return await snapshots.takeSnapshot(connectionId, { baseline: false, actor: PATCH_ACTOR });
    } catch (error) {
      logger.warn(
        { err: error, connection_id: connectionId, run_id: runId },
        'snapshot after a patch execution failed; the patch itself succeeded',
      );
      return null;
    }
  };
}

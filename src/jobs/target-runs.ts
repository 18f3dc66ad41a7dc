// The run handlers that work on target databases: schema migrations (`migration_apply`,
// `migration_rollback`) and data patches (`patch_execute`, `patch_rollback`), for this process,
// with their own pools to the target databases (a `worker` process has no API to borrow them from),
// closed by the returned `close`. Same wiring as drift's jobs (src/jobs/drift.ts).
import type { TargetsConfig } from '../config.ts';
import type { TargetDialect } from '../dialects/index.ts';
import type { DialectName } from '../engine/schema/model.ts';
import { createAuditService } from '../modules/audit/audit.service.ts';
import { createTargetAccess } from '../modules/connections/target-access.ts';
import type { Resolver } from '../modules/connections/target-guard.ts';
import { createMigrationRunHandlers } from '../modules/migrations/migration-runs.ts';
import { createPatchRunHandlers } from '../modules/patches/patch-runs.ts';
import type { RunHandlers } from '../modules/runs/runs.executor.ts';
import {
  createSnapshotAfterPatch,
  type PatchSnapshotLogger,
} from '../modules/snapshots/snapshot-after-patch.ts';
import { createSnapshotsService } from '../modules/snapshots/snapshots.service.ts';
import { createSecretBox } from '../security/secret-box.ts';
import type { Db } from '../store/db.ts';

export interface TargetRunsDeps {
  db: Db;
  now: () => Date;
  /** Opens the connection passwords sealed by the API (the same SECRET_KEY). */
  secretKey: Buffer;
  targets: TargetsConfig;
  dialects?: Record<DialectName, TargetDialect>;
  resolveHost?: Resolver;
  /** Where a failed snapshot after a patch is reported (the patch itself stands). */
  logger?: PatchSnapshotLogger;
}

export function createTargetRunHandlers(deps: TargetRunsDeps): {
  handlers: RunHandlers;
  close: () => Promise<void>;
} {
  const { db, now, targets } = deps;
  const audit = createAuditService({ db, now });
  const box = createSecretBox(deps.secretKey);
  const { connections, close: closeTargets } = createTargetAccess({
    db,
    audit,
    box,
    now,
    targets,
    dialects: deps.dialects,
    resolveHost: deps.resolveHost,
  });
  const snapshots = createSnapshotsService({ db, audit, connections, now });
  return {
    handlers: {
      ...createMigrationRunHandlers({
        db,
        connections,
        now,
        statementTimeoutMs: targets.statementTimeoutMs,
      }),
      ...createPatchRunHandlers({
        db,
        connections,
        snapshotAfterPatch: createSnapshotAfterPatch({
          snapshots,
          logger: deps.logger ?? { warn: () => {} },
        }),
        now,
        statementTimeoutMs: targets.statementTimeoutMs,
      }),
    },
    close: closeTargets,
  };
}

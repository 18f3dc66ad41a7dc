// Schema snapshots and baselines, and the daily deletion of those past retention.
import type { Module, Shared } from '../module.ts';
import { createSnapshotRetention, SNAPSHOT_RETENTION_JOB } from './snapshot-retention.ts';
import { registerSnapshotsRoutes } from './snapshots.routes.ts';

export function snapshotsModule({ config, db, snapshots, logger, now }: Shared): Module {
  return {
    name: 'snapshots',
    routes: (api) => registerSnapshotsRoutes(api, { snapshots }),
    schedules: [
      {
        name: SNAPSHOT_RETENTION_JOB,
        cron: config.snapshotRetention.cron,
        run: createSnapshotRetention({ db, logger, now, retentionDays: config.snapshotRetention.days }),
        retry: { limit: 3, delaySeconds: 60 },
        expireInSeconds: 30 * 60,
      },
    ],
  };
}

// Queue names. They are stored in pg-boss's tables and shared by every process on the store, so a
// rename is a data migration, not a refactoring.
export const jobNames = {
  sessionCleanup: 'session_cleanup',
  runExecute: 'run_execute',
  approvalExpiry: 'approval_expiry',
  driftCheck: 'drift_check',
  sendDriftAlert: 'send_drift_alert',
  backupRetention: 'backup_retention',
  snapshotRetention: 'snapshot_retention',
} as const;

// Store migrations, applied at start-up and by `npm run migrate`. The list is explicit so that the
// order never depends on a directory listing.
import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Db } from './db.ts';
import * as foundation from './migrations/0001_foundation.ts';
import * as twoFactor from './migrations/0002_two_factor.ts';
import * as oauth from './migrations/0003_oauth.ts';
import * as plans from './migrations/0004_plans.ts';
import * as connections from './migrations/0005_connections.ts';
import * as runs from './migrations/0006_runs.ts';
import * as approvals from './migrations/0007_approvals.ts';
import * as drift from './migrations/0008_drift.ts';
import * as schemaMigrations from './migrations/0009_migrations.ts';
import * as patches from './migrations/0010_patches.ts';
import * as patchBackupRetention from './migrations/0011_patch_backup_retention.ts';
import * as patchExecuteXid from './migrations/0012_patch_execute_xid.ts';
import * as auditSequence from './migrations/0013_audit_sequence.ts';
import * as scim from './migrations/0014_scim.ts';
import * as bridge from './migrations/0015_bridge.ts';
import * as saml from './migrations/0016_saml.ts';
import * as anonymize from './migrations/0017_anonymize.ts';
import * as eventOutboxWebhooks from './migrations/0018_event_outbox_webhooks.ts';
import * as auditChain from './migrations/0019_audit_chain.ts';
import * as auditSinks from './migrations/0020_audit_sinks.ts';
import * as billing from './migrations/0021_billing.ts';
import * as seeds from './migrations/0022_seeds.ts';
import * as credentialEpoch from './migrations/0023_credential_epoch.ts';
import * as pendingBadges from './migrations/0024_pending_badges.ts';
import * as runSubjects from './migrations/0025_run_subjects.ts';
import * as migrationRollbackState from './migrations/0026_migration_rollback_state.ts';
import * as projectMemberOrigin from './migrations/0027_project_member_origin.ts';
import * as auditPending from './migrations/0028_audit_pending.ts';

const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_two_factor': twoFactor,
  '0003_oauth': oauth,
  '0004_plans': plans,
  '0005_connections': connections,
  '0006_runs': runs,
  '0007_approvals': approvals,
  '0008_drift': drift,
  '0009_migrations': schemaMigrations,
  '0010_patches': patches,
  '0011_patch_backup_retention': patchBackupRetention,
  '0012_patch_execute_xid': patchExecuteXid,
  '0013_audit_sequence': auditSequence,
  '0014_scim': scim,
  '0015_bridge': bridge,
  '0016_saml': saml,
  '0017_anonymize': anonymize,
  '0018_event_outbox_webhooks': eventOutboxWebhooks,
  '0019_audit_chain': auditChain,
  '0020_audit_sinks': auditSinks,
  '0021_billing': billing,
  '0022_seeds': seeds,
  '0023_credential_epoch': credentialEpoch,
  '0024_pending_badges': pendingBadges,
  '0025_run_subjects': runSubjects,
  '0026_migration_rollback_state': migrationRollbackState,
  '0027_project_member_origin': projectMemberOrigin,
  '0028_audit_pending': auditPending,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies every pending migration; returns the names applied. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'store_migrations',
    migrationLockTableName: 'store_migrations_lock',
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error;
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Applies (or reverts) migrations up to `name` included: for tests of one migration's data work. */
export async function migrateTo(db: Db, name: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'store_migrations',
    migrationLockTableName: 'store_migrations_lock',
  });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}

/** True when every known migration has been applied (for /readyz). */
export async function isMigrated(db: Db): Promise<boolean> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'store_migrations',
    migrationLockTableName: 'store_migrations_lock',
  });
  const all = await migrator.getMigrations();
  return all.every((m) => m.executedAt !== undefined);
}

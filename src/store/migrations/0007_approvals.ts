// Approvals (of operations and of access requests), the decisions on them, and just-in-time access
// requests with their grants. Runs point at the approval they wait for.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('approvals')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // A policy operation (patch_execute, migration_apply, …) or access_request.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'uuid', (c) => c.notNull())
    // No foreign key: a purged user's id stays in the records that name it, as in the audit log.
    .addColumn('requested_by', 'uuid', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'approved', 'rejected', 'cancelled', 'expired')`),
    )
    // Copied from the policy rule when the approval is created: a later policy change does not move
    // the bar for a request already under review.
    .addColumn('required_approvals', 'integer', (c) => c.notNull().check(sql`required_approvals >= 1`))
    .addColumn('allow_self_approval', 'boolean', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('resolved_at', 'timestamptz')
    // An approved approval lets one execution through: set when a run is released or the gate lets
    // one proceed, so a second execution of the same content asks again.
    .addColumn('consumed_at', 'timestamptz')
    .execute();
  // One pending approval per subject and kind: concurrent gates settle on it (insert … on conflict).
  await db.schema
    .createIndex('approvals_one_pending')
    .on('approvals')
    .columns(['kind', 'subject_id'])
    .unique()
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('approvals_subject')
    .on('approvals')
    .columns(['subject_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('approvals_project_status')
    .on('approvals')
    .columns(['project_id', 'status'])
    .execute();
  await db.schema
    .createIndex('approvals_org_created')
    .on('approvals')
    .columns(['org_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('approvals_pending_expiry')
    .on('approvals')
    .column('expires_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  await db.schema
    .createTable('approval_decisions')
    .addColumn('approval_id', 'uuid', (c) => c.notNull().references('approvals.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull().check(sql`decision in ('approve', 'reject')`))
    .addColumn('comment', 'text')
    .addColumn('decided_at', 'timestamptz', (c) => c.notNull())
    // One decision per user and approval: the key settles two racing requests of the same user.
    .addPrimaryKeyConstraint('approval_decisions_pk', ['approval_id', 'user_id'])
    .execute();

  await db.schema
    .alterTable('runs')
    .addForeignKeyConstraint('runs_approval_fk', ['approval_id'], 'approvals', ['id'], (c) =>
      c.onDelete('set null'),
    )
    .execute();
  await db.schema
    .createIndex('runs_approval')
    .on('runs')
    .column('approval_id')
    .where(sql.ref('approval_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('access_requests')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('org_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'developer', 'viewer')`))
    // A grant limited to one connection disappears with it (never widened to the whole project).
    .addColumn('connection_id', 'uuid', (c) => c.references('connections.id').onDelete('cascade'))
    .addColumn('duration_minutes', 'integer', (c) => c.notNull().check(sql`duration_minutes > 0`))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'active', 'expired', 'rejected', 'revoked')`),
    )
    .addColumn('approval_id', 'uuid', (c) => c.notNull().references('approvals.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('activated_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('ended_at', 'timestamptz')
    .addColumn('revoked_by', 'uuid')
    .execute();
  // The authorization looks up a user's active grants on a project on every project-scoped request.
  await db.schema
    .createIndex('access_requests_active_grant')
    .on('access_requests')
    .columns(['user_id', 'project_id', 'expires_at'])
    .where(sql.ref('status'), '=', 'active')
    .execute();
  await db.schema
    .createIndex('access_requests_project_created')
    .on('access_requests')
    .columns(['project_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('access_requests').execute();
  await db.schema.dropIndex('runs_approval').execute();
  await db.schema.alterTable('runs').dropConstraint('runs_approval_fk').execute();
  await db.schema.dropTable('approval_decisions').execute();
  await db.schema.dropTable('approvals').execute();
}

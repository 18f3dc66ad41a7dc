// The sidebar badges of the projects list (pending approvals, pending drift reports) read only what
// is pending, which is what these partial indexes hold: a few rows, whatever the history. Keyed by
// organization first, so the list asks once per organization whether anything is pending at all (an
// index probe that, most of the time, finds nothing and spares the per-project counts) and, when
// something is, counts each project's with both keys (src/modules/projects/projects.repo.ts).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('approvals_pending_org_project')
    .on('approvals')
    .columns(['org_id', 'project_id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('drift_reports_pending_org_project')
    .on('drift_reports')
    .columns(['org_id', 'project_id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('drift_reports_pending_org_project').execute();
  await db.schema.dropIndex('approvals_pending_org_project').execute();
}

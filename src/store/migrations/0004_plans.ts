// Billing plans on the organization: the plan is constrained to the known ones, and an Enterprise
// organization may have rate limits of its own (null: the plan's default).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('rate_limit_per_hour', 'integer')
    .execute();
  await db.schema
    .alterTable('organizations')
    .addCheckConstraint('organizations_plan_known', sql`plan in ('starter', 'pro', 'enterprise')`)
    .execute();
  await db.schema
    .alterTable('organizations')
    .addCheckConstraint(
      'organizations_rate_limits_positive',
      sql`coalesce(rate_limit_per_minute, 1) > 0 and coalesce(rate_limit_per_hour, 1) > 0`,
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').dropConstraint('organizations_rate_limits_positive').execute();
  await db.schema.alterTable('organizations').dropConstraint('organizations_plan_known').execute();
  await db.schema
    .alterTable('organizations')
    .dropColumn('rate_limit_per_minute')
    .dropColumn('rate_limit_per_hour')
    .execute();
}

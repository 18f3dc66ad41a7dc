// Organizations (src/modules/orgs) and their plan.
import type { ColumnType, Generated } from 'kysely';
import type { Plan } from '../../core/vocabulary.ts';
import type { Timestamp } from './columns.ts';

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: Generated<Plan>;
  /** Enterprise limits of this organization; null means the plan's default. */
  rate_limit_per_minute: ColumnType<number | null, number | null | undefined, number | null>;
  rate_limit_per_hour: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

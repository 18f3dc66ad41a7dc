// Payment-provider state (src/modules/billing): the subscription of each organization and the
// provider events already applied (idempotency by event id).
import type { ColumnType } from 'kysely';
import type { SubscriptionStatus } from '../../core/vocabulary.ts';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export interface BillingSubscriptionsTable {
  org_id: string;
  status: SubscriptionStatus;
  customer_id: string | null;
  subscription_id: string | null;
  current_period_end: NullableTimestamp;
  /** After a failed payment: the plan falls back to Starter at this time unless a payment comes. */
  grace_until: NullableTimestamp;
  updated_at: Timestamp;
}

export interface BillingEventsTable {
  /** The provider's event id: a replay finds it here and changes nothing. */
  id: string;
  type: string;
  org_id: string | null;
  received_at: Timestamp;
}

/** Counters of metered work per organization and month, added to by the meter's flushes. */
export interface BillingUsageTable {
  org_id: string;
  /** `YYYY-MM` (UTC). */
  period: string;
  metric: string;
  count: ColumnType<string, number, number>;
}

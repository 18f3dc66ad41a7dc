// The event outbox and the webhooks that read it (src/modules/events, src/modules/webhooks).
import type { Generated } from 'kysely';
import type { DeliveryStatus, EventType } from '../../core/vocabulary.ts';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';

/** A domain event, written in the transaction of the change it tells of; fanned out once. */
export interface EventsTable {
  id: string;
  org_id: string;
  project_id: string | null;
  type: EventType;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
  /** Set when its deliveries exist: the fan-out's cursor, and why a crash loses nothing. */
  dispatched_at: NullableTimestamp;
  /** The order of the outbox, for fan-out in the order of commit (ties of created_at). */
  seq: Generated<string>;
}

export interface WebhooksTable {
  id: string;
  org_id: string;
  project_id: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  disabled_reason: string | null;
  /** `whsec_…`, sealed with the service key. */
  secret_sealed: string;
  /** The secret before the last rotation, still signing until `previous_secret_expires_at`. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** The first bytes of the last answer's body (bounded), for whoever debugs the receiver. */
  last_response_excerpt: string | null;
  last_attempt_at: NullableTimestamp;
  next_attempt_at: NullableTimestamp;
  /** A worker holds the delivery until then: duplicate jobs of one attempt send nothing twice. */
  locked_until: NullableTimestamp;
  created_at: Timestamp;
}

// Audit export sinks (src/modules/audit-export): where an organization's audit chain is streamed.
import type { ColumnType } from 'kysely';
import type { AuditSinkType } from '../../core/vocabulary.ts';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export interface AuditSinksTable {
  id: string;
  org_id: string;
  type: AuditSinkType;
  url: string;
  /** The receiver's token (HEC token, Datadog API key), sealed; write-only in the API. */
  token_sealed: string | null;
  /** Extra request headers as JSON, sealed (they may carry credentials). */
  headers_sealed: string | null;
  /** An http sink's signing secret (`whsec_…`), sealed; shown once at creation. */
  secret_sealed: string | null;
  active: boolean;
  /** The cursor: every entry up to this seq of the organization's chain was accepted by the sink. */
  last_exported_seq: ColumnType<string, number | undefined, number>;
  last_exported_at: NullableTimestamp;
  last_error: string | null;
  last_error_at: NullableTimestamp;
  /** Failed attempts in a row: the back-off grows with them, and a success resets them. */
  failures: number;
  next_attempt_at: NullableTimestamp;
  /** One exporter at a time per sink, so batches go out in seq order. */
  locked_until: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

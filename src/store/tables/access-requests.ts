import type { AccessRequestStatus, ProjectRole } from '../../core/vocabulary.ts';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export interface AccessRequestsTable {
  id: string;
  org_id: string;
  project_id: string;
  user_id: string;
  role: ProjectRole;
  connection_id: string | null;
  duration_minutes: number;
  reason: string;
  status: AccessRequestStatus;
  approval_id: string;
  created_at: Timestamp;
  activated_at: NullableTimestamp;
  /** Null while pending; activation time + duration once granted. */
  expires_at: NullableTimestamp;
  /** When the request stopped being pending or active: rejected, expired or revoked. */
  ended_at: NullableTimestamp;
  revoked_by: string | null;
}

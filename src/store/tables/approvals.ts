import type {
  ApprovalDecisionValue,
  ApprovalKind,
  ApprovalStatus,
  Environment,
} from '../../core/vocabulary.ts';
import type { NullableTimestamp, Timestamp } from './columns.ts';

export interface ApprovalsTable {
  id: string;
  org_id: string;
  project_id: string;
  kind: ApprovalKind;
  subject_id: string;
  requested_by: string;
  status: ApprovalStatus;
  required_approvals: number;
  allow_self_approval: boolean;
  /** The environment of the target connection (operations); null for access requests. */
  environment: Environment | null;
  content_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  resolved_at: NullableTimestamp;
  consumed_at: NullableTimestamp;
}

export interface ApprovalDecisionsTable {
  approval_id: string;
  user_id: string;
  decision: ApprovalDecisionValue;
  comment: string | null;
  decided_at: Timestamp;
}

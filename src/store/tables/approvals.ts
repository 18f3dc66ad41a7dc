import type {
  ApprovalDecisionValue,
  ApprovalKind,
  ApprovalStatus,
  Environment,
} from '../../core/vocabulary.ts';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';
import type { Subject } from './subjects.ts';

export interface ApprovalsTable {
  id: string;
  org_id: string;
  project_id: string;
  kind: ApprovalKind;
  subject_id: string;
  /** What is to be decided (null only on approvals asked before subjects were recorded). */
  subject: Json<Subject> | null;
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

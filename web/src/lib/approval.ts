// Which decisions an approval offers its reader. Approve exactly when the server says the reader
// can decide (`can_decide`). Reject too; and the requester may also reject their own pending request
// as a withdrawal, which the server allows to anyone who may decide: shown to organization owners
// and admins (who may decide everywhere), as the reader's project role is not known here.
import type { Approval, User } from '../api/types.ts';

export interface ApprovalChoices {
  approve: boolean;
  reject: boolean;
  /** The reader asked for it. */
  own: boolean;
}

export function approvalChoices(
  approval: Pick<Approval, 'status' | 'can_decide' | 'requested_by' | 'decisions'>,
  reader: Pick<User, 'id' | 'org_role'> | null | undefined,
): ApprovalChoices {
  const own = reader != null && approval.requested_by === reader.id;
  const decided = reader != null && approval.decisions.some((d) => d.user_id === reader.id);
  const orgAdmin = reader?.org_role === 'owner' || reader?.org_role === 'admin';
  const withdraw = approval.status === 'pending' && own && orgAdmin && !decided;
  return { approve: approval.can_decide, reject: approval.can_decide || withdraw, own };
}

/** "1 of 2 approvals": the approving decisions against the number required. */
export function approvalCount(approval: Pick<Approval, 'decisions' | 'required_approvals'>): string {
  const approvals = approval.decisions.filter((d) => d.decision === 'approve').length;
  return `${approvals} of ${approval.required_approvals} approvals`;
}

import { type Static, Type } from 'typebox';
import { APPROVAL_KINDS, APPROVAL_STATUSES, APPROVAL_DECISIONS as DECISIONS } from '../../core/vocabulary.ts';
import { Nullable, PageQuery, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { Approval, ApprovalDecision } from '../../store/tables.ts';
import { SubjectSchema, toSubjectResponse } from '../runs/subject.schemas.ts';

export { APPROVAL_KINDS, APPROVAL_STATUSES, DECISIONS };

// The fixed fields of the contract (docs/contract.md §10), and what a person needs to decide: `subject`,
// `requester`, `can_decide`.
export const ApprovalSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    kind: StringEnum(APPROVAL_KINDS, {
      description: 'The policy operation that waits for approval, or access_request',
    }),
    subject_id: Uuid,
    requested_by: Uuid,
    status: StringEnum(APPROVAL_STATUSES, {
      description:
        'pending until enough approvals (approved) or one rejection (rejected); cancelled when the ' +
        'content it was bound to changed; expired after 7 days undecided (24 hours for access requests)',
    }),
    required_approvals: Type.Integer({ minimum: 1, description: 'Distinct approvers needed' }),
    decisions: Type.Array(
      Type.Object({
        user_id: Uuid,
        decision: StringEnum(DECISIONS),
        comment: Nullable(Type.String()),
        decided_at: Timestamp,
      }),
      { description: 'Oldest first' },
    ),
    content_hash: Type.String({
      description:
        'What the approval is bound to: a hash of the SQL text and the target schema hash (operations), ' +
        'or of the requested access (access requests). Other content needs a new approval.',
    }),
    created_at: Timestamp,
    expires_at: Timestamp,
    subject: Nullable({
      ...SubjectSchema,
      description: 'What is to be decided; null only on approvals asked before subjects were recorded',
    }),
    requester: Nullable(
      Type.Object(
        { id: Uuid, email: Type.String(), name: Type.String() },
        { title: 'ApprovalRequester', description: 'Who asked; null only when the account is gone' },
      ),
    ),
    can_decide: Type.Boolean({
      description:
        'Whether the caller may approve it now: it is pending, they may decide on the project, they have not ' +
        'decided yet, and it is not their own request (unless the policy allows self-approval)',
    }),
  },
  { title: 'Approval' },
);
export type ApprovalResponse = Static<typeof ApprovalSchema>;

export const ApprovalsQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    project_id: Type.Optional(Uuid),
    status: Type.Optional(StringEnum(APPROVAL_STATUSES)),
  }),
]);
export type ApprovalsQuery = Static<typeof ApprovalsQuery>;

export const DecideBody = Type.Object(
  {
    decision: StringEnum(DECISIONS),
    comment: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { title: 'ApprovalDecisionRequest', additionalProperties: false },
);
export type DecideBody = Static<typeof DecideBody>;

export function toApprovalResponse(
  approval: Approval,
  decisions: ApprovalDecision[],
  reader: { requester: { id: string; email: string; name: string } | null; can_decide: boolean },
): ApprovalResponse {
  return {
    id: approval.id,
    project_id: approval.project_id,
    kind: approval.kind,
    subject_id: approval.subject_id,
    requested_by: approval.requested_by,
    status: approval.status,
    required_approvals: approval.required_approvals,
    decisions: decisions
      .filter((d) => d.approval_id === approval.id)
      .map((d) => ({
        user_id: d.user_id,
        decision: d.decision,
        comment: d.comment,
        decided_at: toTimestamp(d.decided_at),
      })),
    content_hash: approval.content_hash,
    created_at: toTimestamp(approval.created_at),
    expires_at: toTimestamp(approval.expires_at),
    subject: toSubjectResponse(approval.subject),
    requester: reader.requester,
    can_decide: reader.can_decide,
  };
}

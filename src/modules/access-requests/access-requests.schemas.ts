import { type Static, Type } from 'typebox';
import { ACCESS_REQUEST_STATUSES } from '../../core/vocabulary.ts';
import { Nullable, PageQuery, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { AccessRequest } from '../../store/tables.ts';
import { type ApprovalResponse, ApprovalSchema } from '../approvals/approvals.schemas.ts';
import { ProjectRoleSchema } from '../projects/projects.schemas.ts';

export { ACCESS_REQUEST_STATUSES };

/** The longest grant one request may ask for: just-in-time access is meant to be short. */
export const MAX_DURATION_MINUTES = 24 * 60;

export const CreateAccessRequestBody = Type.Object(
  {
    role: ProjectRoleSchema,
    connection_id: Type.Optional(
      Nullable(
        Type.String({
          format: 'uuid',
          description: 'Limit the grant to this connection of the project; the whole project otherwise',
        }),
      ),
    ),
    duration_minutes: Type.Integer({
      minimum: 1,
      maximum: MAX_DURATION_MINUTES,
      description: 'How long the grant lasts once approved (at most 24 hours)',
    }),
    reason: Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S' }),
  },
  { title: 'CreateAccessRequest', additionalProperties: false },
);
export type CreateAccessRequestBody = Static<typeof CreateAccessRequestBody>;

export const AccessRequestSchema = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    user_id: Uuid,
    role: ProjectRoleSchema,
    connection_id: Nullable(Uuid),
    duration_minutes: Type.Integer({ minimum: 1 }),
    reason: Type.String(),
    status: StringEnum(ACCESS_REQUEST_STATUSES, {
      description:
        'pending → active (approved) → expired (at expires_at) or revoked; pending → rejected; ' +
        'pending → expired after 24 hours without a decision',
    }),
    approval_id: Uuid,
    approval: { ...ApprovalSchema, description: 'The approval deciding this request (kind access_request)' },
    created_at: Timestamp,
    activated_at: Nullable(Timestamp),
    expires_at: Nullable(
      Type.String({ format: 'date-time', description: 'End of the grant; null until it is approved' }),
    ),
    ended_at: Nullable(
      Type.String({ format: 'date-time', description: 'When it was rejected, expired or revoked' }),
    ),
    revoked_by: Nullable(Uuid),
  },
  { title: 'AccessRequest' },
);

export const AccessRequestsQuery = Type.Intersect([
  PageQuery,
  Type.Object({ status: Type.Optional(StringEnum(ACCESS_REQUEST_STATUSES)) }),
]);

export function toAccessRequestResponse(request: AccessRequest, approval: ApprovalResponse) {
  return {
    id: request.id,
    project_id: request.project_id,
    user_id: request.user_id,
    role: request.role,
    connection_id: request.connection_id,
    duration_minutes: request.duration_minutes,
    reason: request.reason,
    status: request.status,
    approval_id: request.approval_id,
    approval,
    created_at: toTimestamp(request.created_at),
    activated_at: toTimestamp(request.activated_at),
    expires_at: toTimestamp(request.expires_at),
    ended_at: toTimestamp(request.ended_at),
    revoked_by: request.revoked_by,
  };
}

import { Type } from 'typebox';
import { ENVIRONMENTS, POLICY_OPERATIONS, PROJECT_ROLES } from '../../core/vocabulary.ts';
import { Name, Nullable, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { PolicyRule, Project } from '../../store/tables.ts';

export { ENVIRONMENTS, POLICY_OPERATIONS, PROJECT_ROLES };

const Description = Nullable(Type.String({ maxLength: 2000 }));

export const ProjectSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    description: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    open_drift_reports: Type.Integer({ minimum: 0, description: 'Pending drift reports (sidebar badge)' }),
    pending_approvals: Type.Integer({ minimum: 0, description: 'Pending approvals (sidebar badge)' }),
  },
  { title: 'Project' },
);

export const CreateProjectBody = Type.Object(
  { name: Name, description: Type.Optional(Description) },
  { title: 'CreateProjectRequest', additionalProperties: false },
);

export const UpdateProjectBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description) },
  { title: 'UpdateProjectRequest', additionalProperties: false },
);

export const ProjectParams = Type.Object({ pid: Uuid });
export const MemberParams = Type.Object({ pid: Uuid, user_id: Uuid });

export const ProjectRoleSchema = StringEnum(PROJECT_ROLES);

export const MemberSchema = Type.Object(
  {
    user_id: Uuid,
    email: Type.String(),
    name: Type.String(),
    role: ProjectRoleSchema,
    created_at: Timestamp,
  },
  { title: 'ProjectMember' },
);

export const AddMemberBody = Type.Object(
  { user_id: Uuid, role: ProjectRoleSchema },
  { title: 'AddProjectMemberRequest', additionalProperties: false },
);
export const UpdateMemberBody = Type.Object(
  { role: ProjectRoleSchema },
  { title: 'UpdateProjectMemberRequest', additionalProperties: false },
);

export const PolicyRuleSchema = Type.Object(
  {
    operation: StringEnum(POLICY_OPERATIONS),
    environments: Type.Array(StringEnum(ENVIRONMENTS), { minItems: 1, uniqueItems: true }),
    required_approvals: Type.Integer({ minimum: 1, maximum: 10 }),
    allow_self_approval: Type.Boolean(),
  },
  { title: 'PolicyRule', additionalProperties: false },
);

export const PolicySchema = Type.Object(
  {
    rules: Type.Array(PolicyRuleSchema, {
      maxItems: 50,
      description:
        'Operations on the listed environments need approval. An operation with no rule needs none. ' +
        'Default: every operation on production needs 1 approval, no self-approval.',
    }),
  },
  { additionalProperties: false, title: 'ApprovalPolicy' },
);

/** A project as answered: its columns and the badge counts (null reads as none). */
export type ProjectView = Pick<Project, 'id' | 'name' | 'description' | 'created_at' | 'updated_at'> & {
  pending_approvals: number | null;
  open_drift_reports: number | null;
};

export function toProjectResponse(project: ProjectView) {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    created_at: toTimestamp(project.created_at),
    updated_at: toTimestamp(project.updated_at),
    open_drift_reports: project.open_drift_reports ?? 0,
    pending_approvals: project.pending_approvals ?? 0,
  };
}

export function toMemberResponse(member: {
  user_id: string;
  email: string;
  name: string;
  role: string;
  created_at: Date;
}) {
  return {
    ...member,
    role: member.role as (typeof PROJECT_ROLES)[number],
    created_at: toTimestamp(member.created_at),
  };
}

export const DEFAULT_POLICY: PolicyRule[] = POLICY_OPERATIONS.map((operation) => ({
  operation,
  environments: ['production'],
  required_approvals: 1,
  allow_self_approval: false,
}));

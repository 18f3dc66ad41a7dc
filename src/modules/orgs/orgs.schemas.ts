import { Type } from 'typebox';
import { PLAN_IDS } from '../../core/vocabulary.ts';
import { Name, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { Organization } from '../../store/tables.ts';

export const OrganizationSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    plan: StringEnum(PLAN_IDS),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Organization' },
);

export const UpdateOrgBody = Type.Object(
  { name: Name },
  { title: 'UpdateOrganizationRequest', additionalProperties: false },
);

export function toOrgResponse(org: Organization) {
  return {
    id: org.id,
    name: org.name,
    plan: org.plan,
    created_at: toTimestamp(org.created_at),
    updated_at: toTimestamp(org.updated_at),
  };
}

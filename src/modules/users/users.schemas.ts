import { Type } from 'typebox';
import { ORG_ROLES } from '../../core/vocabulary.ts';
import { Name, Nullable, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { User } from '../../store/tables.ts';

export { ORG_ROLES };

export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Password = Type.String({ minLength: 8, maxLength: 256, description: '8 to 256 characters' });
export const OrgRoleSchema = StringEnum(ORG_ROLES);

export const UserSchema = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
    name: Type.String(),
    org_role: OrgRoleSchema,
    active: Type.Boolean(),
    scim_external_id: Nullable(Type.String()),
    two_factor_enabled: Type.Boolean(),
    created_at: Timestamp,
    deleted_at: Nullable(Timestamp),
  },
  { title: 'User' },
);

export const CreateUserBody = Type.Object(
  { email: Email, name: Name, org_role: OrgRoleSchema, password: Password },
  { title: 'CreateUserRequest', additionalProperties: false },
);

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(Name),
    org_role: Type.Optional(OrgRoleSchema),
    active: Type.Optional(Type.Boolean()),
  },
  { title: 'UpdateUserRequest', additionalProperties: false },
);

export function toUserResponse(user: User) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    org_role: user.org_role,
    active: user.active,
    scim_external_id: user.scim_external_id,
    two_factor_enabled: user.two_factor_enabled,
    created_at: toTimestamp(user.created_at),
    deleted_at: toTimestamp(user.deleted_at),
  };
}

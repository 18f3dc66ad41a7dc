import { Type } from 'typebox';
import { ORG_ROLES, PROJECT_ROLES } from '../../core/vocabulary.ts';
import { Nullable, StringEnum, Timestamp, toTimestamp, Uuid } from '../../http/schemas.ts';
import type { GroupMapping } from '../../store/tables.ts';

const GroupMappingSchema = Type.Object(
  {
    group: Type.String({ minLength: 1, maxLength: 256, description: "A group's displayName or externalId" }),
    org_role: Type.Optional(StringEnum(ORG_ROLES, { description: 'owner is refused: SCIM never grants it' })),
    projects: Type.Optional(
      Type.Array(
        Type.Object({ project_id: Uuid, role: StringEnum(PROJECT_ROLES) }, { additionalProperties: false }),
        {
          maxItems: 500,
        },
      ),
    ),
  },
  { title: 'ScimGroupMapping', additionalProperties: false },
);

export const GroupMappingsBody = Type.Object(
  { mappings: Type.Array(GroupMappingSchema, { maxItems: 500 }) },
  { title: 'ScimGroupMappingsRequest', additionalProperties: false },
);

export const ScimConfigSchema = Type.Object(
  {
    base_url: Type.String({ description: 'The SCIM base URL to give the identity provider' }),
    token_set: Type.Boolean(),
    token_created_at: Nullable(Timestamp),
    group_mappings: Type.Array(GroupMappingSchema),
  },
  { title: 'ScimConfig' },
);

export const ScimTokenSchema = Type.Object(
  {
    token: Type.String({ description: 'Shown once; a new token replaces this one at once' }),
    base_url: Type.String(),
    created_at: Timestamp,
  },
  { title: 'ScimToken' },
);

export function toScimConfig(
  baseUrl: string,
  config:
    | { token_hash: string | null; token_created_at: Date | null; group_mappings: GroupMapping[] }
    | undefined,
) {
  return {
    base_url: baseUrl,
    token_set: Boolean(config?.token_hash),
    token_created_at: config?.token_created_at ? toTimestamp(config.token_created_at) : null,
    group_mappings: config?.group_mappings ?? [],
  };
}

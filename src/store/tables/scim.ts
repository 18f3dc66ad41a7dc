// SCIM provisioning (src/modules/scim): the organization's token and group mappings, pushed groups.
import type { ColumnType } from 'kysely';
import type { OrgRole, ProjectRole } from '../../core/vocabulary.ts';
import type { NullableTimestamp, Timestamp } from './columns.ts';

/** An identity-provider group (by displayName or externalId) and the roles its members get. */
export interface GroupMapping {
  group: string;
  org_role?: Exclude<OrgRole, 'owner'>;
  projects?: { project_id: string; role: ProjectRole }[];
}

export interface ScimConfigsTable {
  org_id: string;
  /** SHA-256 of the bearer token; null until an admin makes one. */
  token_hash: string | null;
  token_created_at: NullableTimestamp;
  group_mappings: ColumnType<GroupMapping[], string | undefined, string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface ScimGroupsTable {
  id: string;
  org_id: string;
  display_name: string;
  external_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ScimGroupMembersTable {
  group_id: string;
  user_id: string;
}

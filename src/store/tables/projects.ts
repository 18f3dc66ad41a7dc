import type { ColumnType, Generated } from 'kysely';
import type { Environment, PolicyOperation, ProjectRole } from '../../core/vocabulary.ts';
import type { Json, Timestamp } from './columns.ts';

export interface PolicyRule {
  operation: PolicyOperation;
  environments: Environment[];
  required_approvals: number;
  allow_self_approval: boolean;
}

export interface ProjectsTable {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  /** null means the default policy. */
  policy: Json<PolicyRule[]> | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  role: ProjectRole;
  /** Set by SCIM's group mappings (taken back when they no longer give it); false when set by hand. */
  scim_managed: Generated<boolean>;
  /** The role an admin gave by hand before SCIM took the membership over: what it returns to. */
  role_by_hand: ColumnType<ProjectRole | null, ProjectRole | null | undefined, ProjectRole | null>;
  created_at: Timestamp;
}

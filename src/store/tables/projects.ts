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
  created_at: Timestamp;
}

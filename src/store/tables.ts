// Row types of the service store, as Kysely sees them. snake_case like the SQL.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;

export type OrgRole = 'owner' | 'admin' | 'member';
export type ProjectRole = 'admin' | 'developer' | 'viewer';
export type Scope = 'read' | 'write' | 'admin';
export type AuditOutcome = 'success' | 'failure' | 'denied';
export type ActorType = 'user' | 'api_key' | 'system' | 'anonymous';
/** Billing plans; what each allows is in src/modules/billing/plans.ts. */
export type Plan = 'starter' | 'pro' | 'enterprise';

export interface OrganizationsTable {
  id: string;
  name: string;
  plan: Generated<Plan>;
  /** Enterprise limits of this organization; null means the plan's default. */
  rate_limit_per_minute: ColumnType<number | null, number | null | undefined, number | null>;
  rate_limit_per_hour: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: string;
  org_id: string;
  email: string;
  name: string;
  org_role: OrgRole;
  password_hash: string | null;
  active: Generated<boolean>;
  scim_external_id: string | null;
  two_factor_enabled: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
  /** The TOTP seed, sealed with the secret box (purpose 'totp'); null without 2FA. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  /** A seed given by 2FA setup and not yet confirmed by a code, sealed like totp_secret. */
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
  /** The last accepted TOTP time step: a code of this step or an earlier one is a replay. */
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  /** SHA-256 of the normalised code (high-entropy, so no salt needed). */
  code_hash: string;
  created_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface LoginChallengesTable {
  id: string;
  /** SHA-256 of the partial token handed to the client. */
  token_hash: string;
  user_id: string;
  /** The first factor that was verified: password, google or github. */
  method: string;
  failed_attempts: Generated<number>;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface OAuthIdentitiesTable {
  id: string;
  user_id: string;
  /** `google` or `github`. */
  provider: string;
  /** The provider's stable id of the account: OIDC `sub`, GitHub's numeric user id. */
  provider_user_id: string;
  /** The provider-verified e-mail seen when the identity was linked. */
  email: string | null;
  created_at: Timestamp;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  scopes: Scope[];
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
}

export type PolicyOperation =
  | 'patch_execute'
  | 'patch_rollback'
  | 'migration_apply'
  | 'migration_rollback'
  | 'seed_run'
  | 'anonymize_run'
  | 'bridge_run';
export type Environment = 'development' | 'staging' | 'production';

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

export interface AuditLogTable {
  id: string;
  org_id: string | null;
  actor_type: ActorType;
  actor_id: string | null;
  actor_label: string | null;
  api_key_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  project_id: string | null;
  ip: string | null;
  user_agent: string | null;
  outcome: AuditOutcome;
  details: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  sessions: SessionsTable;
  oauth_identities: OAuthIdentitiesTable;
  recovery_codes: RecoveryCodesTable;
  login_challenges: LoginChallengesTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  audit_log: AuditLogTable;
}

export type Organization = Selectable<OrganizationsTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Session = Selectable<SessionsTable>;
export type OAuthIdentity = Selectable<OAuthIdentitiesTable>;
export type LoginChallenge = Selectable<LoginChallengesTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Project = Selectable<ProjectsTable>;
export type ProjectMember = Selectable<ProjectMembersTable>;
export type AuditEntry = Selectable<AuditLogTable>;

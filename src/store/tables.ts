// Row types of the service store, as Kysely sees them. snake_case like the SQL.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  AccessRequestStatus,
  ActorType,
  ApprovalDecisionValue,
  ApprovalKind,
  ApprovalStatus,
  AuditOutcome,
  ConnectionDialect,
  DriftSeverity,
  DriftStatus,
  Environment,
  MigrationStatus,
  OrgRole,
  PatchStatus,
  Plan,
  PolicyOperation,
  ProjectRole,
  RunKind,
  RunStatus,
  Scope,
} from '../core/vocabulary.ts';

export type {
  AccessRequestStatus,
  ActorType,
  ApprovalDecisionValue,
  ApprovalKind,
  ApprovalStatus,
  AuditOutcome,
  ConnectionDialect,
  DriftSeverity,
  DriftStatus,
  Environment,
  MigrationStatus,
  OrgRole,
  PatchStatus,
  Plan,
  PolicyOperation,
  ProjectRole,
  RunKind,
  RunStatus,
  Scope,
};

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;

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

export type SslMode = 'disable' | 'require' | 'verify-full';

export interface ConnectionsTable {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  dialect: ConnectionDialect;
  host: string;
  port: number;
  database: string;
  username: string;
  /** Sealed with the secret box (purpose 'connection-password'); the empty password sealed too. */
  password: string;
  ssl_mode: SslMode;
  /** PEM CA certificate(s) for ssl_mode verify-full; null means the system's trust store. */
  ca_cert: string | null;
  environment: Environment;
  protected: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SnapshotsTable {
  id: string;
  org_id: string;
  connection_id: string;
  taken_at: Timestamp;
  /** SHA-256 (hex) of the canonical JSON of the model (src/engine/schema/hash.ts). */
  schema_hash: string;
  /** The introspected SchemaModel (src/engine/schema/model.ts), as JSON. */
  schema_json: Json<unknown>;
  is_baseline: Generated<boolean>;
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
  /** The order the store took the entries in: ties of `created_at` (one transaction) by it. */
  seq: Generated<string>;
}

export interface RunsTable {
  id: string;
  org_id: string;
  project_id: string;
  kind: RunKind;
  subject_id: string | null;
  status: RunStatus;
  approval_id: string | null;
  progress_done: ColumnType<string, number | undefined, number>;
  progress_total: ColumnType<string | null, number | null | undefined, number | null>;
  progress_unit: string;
  /** What the operation was asked to do (e.g. expected_rows, force); read by its handler. */
  params: Json<Record<string, unknown>>;
  result: Json<Record<string, unknown>> | null;
  error: string | null;
  created_by: string | null;
  cancel_requested: Generated<boolean>;
  worker_id: string | null;
  heartbeat_at: NullableTimestamp;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

export interface ApprovalsTable {
  id: string;
  org_id: string;
  project_id: string;
  kind: ApprovalKind;
  subject_id: string;
  requested_by: string;
  status: ApprovalStatus;
  required_approvals: number;
  allow_self_approval: boolean;
  /** The environment of the target connection (operations); null for access requests. */
  environment: Environment | null;
  content_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  resolved_at: NullableTimestamp;
  consumed_at: NullableTimestamp;
}

export interface ApprovalDecisionsTable {
  approval_id: string;
  user_id: string;
  decision: ApprovalDecisionValue;
  comment: string | null;
  decided_at: Timestamp;
}

export interface AccessRequestsTable {
  id: string;
  org_id: string;
  project_id: string;
  user_id: string;
  role: ProjectRole;
  connection_id: string | null;
  duration_minutes: number;
  reason: string;
  status: AccessRequestStatus;
  approval_id: string;
  created_at: Timestamp;
  activated_at: NullableTimestamp;
  /** Null while pending; activation time + duration once granted. */
  expires_at: NullableTimestamp;
  /** When the request stopped being pending or active: rejected, expired or revoked. */
  ended_at: NullableTimestamp;
  revoked_by: string | null;
}

/** none: nothing to tell (cosmetic only); pending: the e-mail is still to be sent; sent. */
export type DriftAlertState = 'none' | 'pending' | 'sent';

export interface DriftReportsTable {
  id: string;
  org_id: string;
  project_id: string;
  connection_id: string;
  baseline_snapshot_id: string;
  current_snapshot_id: string;
  current_schema_hash: string;
  status: DriftStatus;
  severity: DriftSeverity;
  /** `{critical, moderate, minor}` (src/engine/schema/diff.ts DiffSummary). */
  summary: Json<{ critical: number; moderate: number; minor: number }>;
  /** The SchemaDiff of src/engine/schema/diff.ts. */
  diff: Json<unknown>;
  alert_state: DriftAlertState;
  alert_sent_at: NullableTimestamp;
  created_at: Timestamp;
  acknowledged_at: NullableTimestamp;
  acknowledged_by: string | null;
  comment: string | null;
}

/** A stored migration statement: what the API shows, and what apply, lint and the drop check need. */
export interface StoredMigrationStatement {
  sql: string;
  kind: string;
  object: string;
  destructive: boolean;
  transactional: boolean;
  reversible: boolean;
  /** The engine's StatementFact[] (src/engine/migration/facts.ts); null when it did not parse. */
  facts: unknown[] | null;
  parse_error: string | null;
}

export interface MigrationsTable {
  id: string;
  org_id: string;
  project_id: string;
  source_connection_id: string;
  target_connection_id: string;
  status: MigrationStatus;
  generated_sql: string;
  statements: Json<StoredMigrationStatement[]>;
  /** LintWarning[] (src/engine/migration/lint.ts). */
  lint_warnings: Json<unknown[]>;
  /** ExecutableStatement[] or null when none can be generated. */
  rollback: Json<{ sql: string; transactional: boolean }[]> | null;
  rollback_sql: string | null;
  /** The planned Migration of the engine. */
  plan: Json<unknown>;
  source_model: Json<unknown>;
  target_model: Json<unknown>;
  scope: Json<{ include_tables?: string[]; exclude_tables?: string[] }>;
  source_schema_hash: string;
  target_schema_hash: string;
  applied_at: NullableTimestamp;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * A parsed statement of a patch (src/engine/patch/parse-patch.ts) with its rollback key
 * (src/engine/patch/rollback-key.ts), decided when the patch is saved and again at execute.
 */
export interface StoredPatchStatement {
  index: number;
  kind: 'update' | 'delete' | 'insert';
  table: string;
  reversible: boolean;
  /** Why a rollback cannot restore what the statement changes; null when it can. */
  irreversible_reason: string | null;
  /** The columns that find the statement's rows again; null when it is irreversible. */
  key: string[] | null;
  /** The table's writable columns when the patch was executed: what its images hold. */
  columns?: string[];
  sql: string;
  has_where: boolean;
  target_sql: string;
  table_sql: string;
  where_sql: string | null;
  set_columns: string[];
  upsert: boolean;
}

export interface PatchesTable {
  id: string;
  org_id: string;
  project_id: string;
  connection_id: string;
  title: string;
  sql: string;
  allow_full_table: Generated<boolean>;
  status: PatchStatus;
  statements: Json<StoredPatchStatement[]>;
  executed_at: NullableTimestamp;
  execute_run_id: string | null;
  /** When the backup_retention job dropped the execution's backup tables; no rollback after it. */
  backups_dropped_at: NullableTimestamp;
  /** PostgreSQL: the id (32 bits, as `xmin` shows it) of the transaction that executed the patch. */
  execute_xid: string | null;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** E-mails written down instead of sent, when no SMTP server is configured (src/mail). */
export interface OutboxTable {
  id: string;
  recipients: Json<string[]>;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_at: Timestamp;
}

export interface Database {
  runs: RunsTable;
  approvals: ApprovalsTable;
  approval_decisions: ApprovalDecisionsTable;
  access_requests: AccessRequestsTable;
  drift_reports: DriftReportsTable;
  migrations: MigrationsTable;
  patches: PatchesTable;
  outbox: OutboxTable;
  organizations: OrganizationsTable;
  users: UsersTable;
  sessions: SessionsTable;
  oauth_identities: OAuthIdentitiesTable;
  recovery_codes: RecoveryCodesTable;
  login_challenges: LoginChallengesTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  connections: ConnectionsTable;
  snapshots: SnapshotsTable;
  audit_log: AuditLogTable;
}

export type Organization = Selectable<OrganizationsTable>;
export type SchemaMigration = Selectable<MigrationsTable>;
export type Patch = Selectable<PatchesTable>;
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
export type Connection = Selectable<ConnectionsTable>;
export type Snapshot = Selectable<SnapshotsTable>;
export type Run = Selectable<RunsTable>;
export type Approval = Selectable<ApprovalsTable>;
export type ApprovalDecision = Selectable<ApprovalDecisionsTable>;
export type AccessRequest = Selectable<AccessRequestsTable>;
export type DriftReport = Selectable<DriftReportsTable>;
export type OutboxMail = Selectable<OutboxTable>;

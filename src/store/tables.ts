// Row types of the service store, as Kysely sees them, snake_case like the SQL: each area's tables
// in src/store/tables/<area>.ts, the database they make together here.
import type { Insertable, Selectable, Updateable } from 'kysely';

export type {
  AccessRequestStatus,
  ActorType,
  ApprovalDecisionValue,
  ApprovalKind,
  ApprovalStatus,
  AuditOutcome,
  AuditSinkType,
  ConnectionDialect,
  DeliveryStatus,
  DriftSeverity,
  DriftStatus,
  Environment,
  EventType,
  MigrationStatus,
  OrgRole,
  PatchStatus,
  Plan,
  PolicyOperation,
  ProjectRole,
  RunKind,
  RunStatus,
  Scope,
  SubscriptionStatus,
} from '../core/vocabulary.ts';

import type { AccessRequestsTable } from './tables/access-requests.ts';
import type { AnonymizeConfigsTable } from './tables/anonymize.ts';
import type { ApiKeysTable } from './tables/api-keys.ts';
import type { ApprovalDecisionsTable, ApprovalsTable } from './tables/approvals.ts';
import type { AuditLogTable, AuditPendingTable } from './tables/audit.ts';
import type { AuditSinksTable } from './tables/audit-export.ts';
import type {
  LoginChallengesTable,
  OAuthIdentitiesTable,
  RecoveryCodesTable,
  SessionsTable,
} from './tables/auth.ts';
import type { BillingEventsTable, BillingSubscriptionsTable, BillingUsageTable } from './tables/billing.ts';
import type { BridgeTableLoadsTable } from './tables/bridge.ts';
import type { ConnectionsTable } from './tables/connections.ts';
import type { DriftReportsTable } from './tables/drift.ts';
import type { EventsTable, WebhookDeliveriesTable, WebhooksTable } from './tables/events.ts';
import type { MigrationsTable } from './tables/migrations.ts';
import type { OrganizationsTable } from './tables/organizations.ts';
import type { OutboxTable } from './tables/outbox.ts';
import type { PatchesTable } from './tables/patches.ts';
import type { ProjectMembersTable, ProjectsTable } from './tables/projects.ts';
import type { RunsTable } from './tables/runs.ts';
import type { SamlAssertionsTable, SamlConfigsTable, SamlRequestsTable } from './tables/saml.ts';
import type { ScimConfigsTable, ScimGroupMembersTable, ScimGroupsTable } from './tables/scim.ts';
import type { SeedScenariosTable } from './tables/seeds.ts';
import type { SnapshotsTable } from './tables/snapshots.ts';
import type { UsersTable } from './tables/users.ts';

export * from './tables/access-requests.ts';
export * from './tables/anonymize.ts';
export * from './tables/api-keys.ts';
export * from './tables/approvals.ts';
export * from './tables/audit.ts';
export * from './tables/audit-export.ts';
export * from './tables/auth.ts';
export * from './tables/billing.ts';
export * from './tables/bridge.ts';
export * from './tables/connections.ts';
export * from './tables/drift.ts';
export * from './tables/events.ts';
export * from './tables/migrations.ts';
export * from './tables/organizations.ts';
export * from './tables/outbox.ts';
export * from './tables/patches.ts';
export * from './tables/projects.ts';
export * from './tables/runs.ts';
export * from './tables/saml.ts';
export * from './tables/scim.ts';
export * from './tables/seeds.ts';
export * from './tables/snapshots.ts';
export * from './tables/subjects.ts';
export * from './tables/users.ts';

export interface Database {
  runs: RunsTable;
  approvals: ApprovalsTable;
  approval_decisions: ApprovalDecisionsTable;
  access_requests: AccessRequestsTable;
  drift_reports: DriftReportsTable;
  migrations: MigrationsTable;
  patches: PatchesTable;
  anonymize_configs: AnonymizeConfigsTable;
  seed_scenarios: SeedScenariosTable;
  outbox: OutboxTable;
  organizations: OrganizationsTable;
  users: UsersTable;
  sessions: SessionsTable;
  oauth_identities: OAuthIdentitiesTable;
  recovery_codes: RecoveryCodesTable;
  login_challenges: LoginChallengesTable;
  saml_configs: SamlConfigsTable;
  saml_requests: SamlRequestsTable;
  saml_assertions: SamlAssertionsTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  connections: ConnectionsTable;
  snapshots: SnapshotsTable;
  audit_log: AuditLogTable;
  audit_pending: AuditPendingTable;
  scim_configs: ScimConfigsTable;
  scim_groups: ScimGroupsTable;
  scim_group_members: ScimGroupMembersTable;
  bridge_table_loads: BridgeTableLoadsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  audit_sinks: AuditSinksTable;
  billing_subscriptions: BillingSubscriptionsTable;
  billing_events: BillingEventsTable;
  billing_usage: BillingUsageTable;
}

export type Organization = Selectable<OrganizationsTable>;
export type SchemaMigration = Selectable<MigrationsTable>;
export type Patch = Selectable<PatchesTable>;
export type AnonymizeConfig = Selectable<AnonymizeConfigsTable>;
export type SeedScenario = Selectable<SeedScenariosTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Session = Selectable<SessionsTable>;
export type OAuthIdentity = Selectable<OAuthIdentitiesTable>;
export type LoginChallenge = Selectable<LoginChallengesTable>;
export type SamlConfig = Selectable<SamlConfigsTable>;
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
export type ScimGroup = Selectable<ScimGroupsTable>;
export type DomainEvent = Selectable<EventsTable>;
export type Webhook = Selectable<WebhooksTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type AuditSink = Selectable<AuditSinksTable>;
export type BillingSubscription = Selectable<BillingSubscriptionsTable>;

// The closed sets of values the service speaks in (roles, scopes, plans, run kinds, statuses), each
// written once: the TypeBox schemas enumerate these arrays, the store's row types and the code use
// the types derived from them, so the three can never disagree.

export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export const PROJECT_ROLES = ['admin', 'developer', 'viewer'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

/** API key scopes: `admin` implies `write` implies `read`. */
export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Billing plans; what each allows is in src/core/plans.ts. */
export const PLAN_IDS = ['starter', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLAN_IDS)[number];

export const ENVIRONMENTS = ['development', 'staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const DIALECTS = ['postgresql', 'mysql'] as const;
export type ConnectionDialect = (typeof DIALECTS)[number];

export const AUDIT_OUTCOMES = ['success', 'failure', 'denied'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export const ACTOR_TYPES = ['user', 'api_key', 'system', 'anonymous'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** The operations an approval policy can list (docs/contract.md §5): each is also a run kind. */
export const POLICY_OPERATIONS = [
  'patch_execute',
  'patch_rollback',
  'migration_apply',
  'migration_rollback',
  'seed_run',
  'anonymize_run',
  'bridge_run',
] as const;
export type PolicyOperation = (typeof POLICY_OPERATIONS)[number];

/** Every kind of run (docs/contract.md §7); a module registers the handler of each kind it owns. */
export const RUN_KINDS = [...POLICY_OPERATIONS, 'drift_check'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export const RUN_STATUSES = [
  'queued',
  'awaiting_approval',
  'running',
  'succeeded',
  'failed',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What an approval is for: an operation of the policy, or a just-in-time access request. */
export const APPROVAL_KINDS = [...POLICY_OPERATIONS, 'access_request'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/**
 * What an approval or a run is about, as a person reads it (docs/contract.md §10): the resource, not the run kind
 * (a patch's execute and rollback are both about the patch).
 */
export const SUBJECT_KINDS = [
  'patch',
  'migration',
  'seed_scenario',
  'anonymize_config',
  'bridge',
  'access_request',
] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'cancelled', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const APPROVAL_DECISIONS = ['approve', 'reject'] as const;
export type ApprovalDecisionValue = (typeof APPROVAL_DECISIONS)[number];

export const ACCESS_REQUEST_STATUSES = ['pending', 'active', 'expired', 'rejected', 'revoked'] as const;
export type AccessRequestStatus = (typeof ACCESS_REQUEST_STATUSES)[number];

export const MIGRATION_STATUSES = [
  'draft',
  'applying',
  'applied',
  'rolling_back',
  'failed',
  'rolled_back',
] as const;
export type MigrationStatus = (typeof MIGRATION_STATUSES)[number];

export const PATCH_STATUSES = ['draft', 'executing', 'executed', 'failed', 'rolled_back'] as const;
export type PatchStatus = (typeof PATCH_STATUSES)[number];

export const DRIFT_STATUSES = ['pending', 'acknowledged'] as const;
export type DriftStatus = (typeof DRIFT_STATUSES)[number];

export const DRIFT_SEVERITIES = ['critical', 'moderate', 'minor', 'cosmetic'] as const;
export type DriftSeverity = (typeof DRIFT_SEVERITIES)[number];

/** Domain events sent to webhooks (docs/contract.md §11.1): a closed set; `"*"` in a subscription means all. */
export const EVENT_TYPES = [
  'patch.executed',
  'patch.failed',
  'patch.rolled_back',
  'migration.applied',
  'migration.failed',
  'migration.rolled_back',
  'drift.detected',
  'drift.acknowledged',
  'approval.requested',
  'approval.decided',
  'access_request.created',
  'access_request.decided',
  'access_request.expired',
  'seed.completed',
  'anonymize.completed',
  'bridge.completed',
  'run.failed',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Where audit entries can be exported (docs/contract.md §11.2). */
export const AUDIT_SINK_TYPES = ['http', 'splunk_hec', 'datadog'] as const;
export type AuditSinkType = (typeof AUDIT_SINK_TYPES)[number];

/** An organization's subscription with the payment provider (docs/contract.md §11.3). */
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

// The one place that decides whether a principal may perform an action. Routes declare the action
// they need; the HTTP layer checks the scope and the organization role, and services ask for the
// project role once they know which project a resource belongs to. Permissions are the user's
// current roles intersected with the API key's scopes: a key never exceeds its owner.
import type { Principal } from '../core/actors.ts';
import type { OrgRole, ProjectRole, Scope } from '../core/vocabulary.ts';

/**
 * What a decision reads of a principal. A run's requester, checked again when an approval releases
 * the run (src/modules/runs/run-requester.ts), is read from the store and has no credentials.
 */
export type RoleHolder = Pick<Principal, 'orgRole' | 'scopes'>;

type ActionRule = { scope: Scope } & ({ orgRole: OrgRole } | { projectRole: ProjectRole });

/**
 * Every action of the API. `read` covers GET, `write` POST/PUT/PATCH on operational resources, and
 * `admin` DELETE, policies and members, API keys and organization settings (docs/contract.md §3). The action of
 * a DELETE route must need `admin`: src/http/auth.ts refuses to register one that does not.
 */
export const ACTIONS = {
  'self.read': { scope: 'read', orgRole: 'member' },
  'self.update': { scope: 'write', orgRole: 'member' },
  // A DELETE, so the admin scope of a key (docs/contract.md §3), even on one's own sessions.
  'self.sessions.revoke': { scope: 'admin', orgRole: 'member' },
  'org.read': { scope: 'read', orgRole: 'member' },
  'org.update': { scope: 'admin', orgRole: 'admin' },
  'scim.read': { scope: 'read', orgRole: 'admin' },
  'scim.manage': { scope: 'admin', orgRole: 'admin' },
  // SAML single sign-on settings: organization settings, the admins' (the admin scope, docs/contract.md §3).
  'saml.read': { scope: 'read', orgRole: 'admin' },
  'saml.manage': { scope: 'admin', orgRole: 'admin' },
  'users.read': { scope: 'read', orgRole: 'member' },
  'users.manage': { scope: 'admin', orgRole: 'admin' },
  'users.purge': { scope: 'admin', orgRole: 'owner' },
  'api_keys.read': { scope: 'read', orgRole: 'member' },
  'api_keys.manage': { scope: 'admin', orgRole: 'member' },
  'audit.read': { scope: 'read', orgRole: 'admin' },
  'projects.list': { scope: 'read', orgRole: 'member' },
  'projects.create': { scope: 'write', orgRole: 'member' },
  'project.read': { scope: 'read', projectRole: 'viewer' },
  'project.update': { scope: 'write', projectRole: 'admin' },
  'project.delete': { scope: 'admin', projectRole: 'admin' },
  'project.members': { scope: 'admin', projectRole: 'admin' },
  'project.policy': { scope: 'admin', projectRole: 'admin' },
  // Connections: anyone on the project sees them and their schema; where the service connects, with
  // which credentials and under which protection is the project admins' call; developers may check
  // that a connection works and take snapshots, but only admins move the drift baseline (which
  // silences the drift it hides).
  'connection.read': { scope: 'read', projectRole: 'viewer' },
  'connection.create': { scope: 'write', projectRole: 'admin' },
  'connection.update': { scope: 'write', projectRole: 'admin' },
  // Turning a connection's protection off (an edit, checked by the service on top of
  // connection.update) lifts the approval every write to it needs: the organization's admins only.
  'connection.unprotect': { scope: 'admin', orgRole: 'admin' },
  'connection.test': { scope: 'write', projectRole: 'developer' },
  'connection.delete': { scope: 'admin', projectRole: 'admin' },
  'snapshot.create': { scope: 'write', projectRole: 'developer' },
  'snapshot.baseline': { scope: 'write', projectRole: 'admin' },
  // Drift (Enterprise): the project sees reports; developers may check now, as they may snapshot;
  // acknowledging moves the baseline, so it is the admins' call like snapshot.baseline.
  'drifts.list': { scope: 'read', orgRole: 'member' },
  'drift.read': { scope: 'read', projectRole: 'viewer' },
  'drift.check': { scope: 'write', projectRole: 'developer' },
  'drift.acknowledge': { scope: 'write', projectRole: 'admin' },
  // Schema migrations: the project sees them; developers compare, edit, apply and roll back (the
  // project policy's approvals guard what reaches production).
  'migration.read': { scope: 'read', projectRole: 'viewer' },
  'migration.compare': { scope: 'write', projectRole: 'developer' },
  'migration.edit': { scope: 'write', projectRole: 'developer' },
  'migration.apply': { scope: 'write', projectRole: 'developer' },
  'migration.rollback': { scope: 'write', projectRole: 'developer' },
  // Data patches: the project sees them; developers write, dry-run, execute and roll them back
  // (the project policy's approvals guard what reaches production).
  'patch.read': { scope: 'read', projectRole: 'viewer' },
  'patch.create': { scope: 'write', projectRole: 'developer' },
  'patch.edit': { scope: 'write', projectRole: 'developer' },
  'patch.delete': { scope: 'admin', projectRole: 'developer' },
  'patch.dry_run': { scope: 'write', projectRole: 'developer' },
  'patch.execute': { scope: 'write', projectRole: 'developer' },
  'patch.rollback': { scope: 'write', projectRole: 'developer' },
  // Bridge: developers copy between the project's connections (the policy's approvals and
  // protected connections guard what reaches production).
  'bridge.run': { scope: 'write', projectRole: 'developer' },
  // Anonymization configs: the project sees them and their PII scan (categories, never values);
  // developers write them, preview (which shows sampled personal values) and run them.
  'anonymize.read': { scope: 'read', projectRole: 'viewer' },
  'anonymize.create': { scope: 'write', projectRole: 'developer' },
  'anonymize.edit': { scope: 'write', projectRole: 'developer' },
  'anonymize.delete': { scope: 'admin', projectRole: 'developer' },
  'anonymize.preview': { scope: 'write', projectRole: 'developer' },
  'anonymize.run': { scope: 'write', projectRole: 'developer' },
  // Seed scenarios: the project sees them; developers write, preview and run them (the policy's
  // approvals and protected connections guard what reaches production).
  'seed.read': { scope: 'read', projectRole: 'viewer' },
  'seed.create': { scope: 'write', projectRole: 'developer' },
  'seed.edit': { scope: 'write', projectRole: 'developer' },
  'seed.delete': { scope: 'admin', projectRole: 'developer' },
  'seed.preview': { scope: 'write', projectRole: 'developer' },
  'seed.run': { scope: 'write', projectRole: 'developer' },
  // Runs: seen by the project; stopped by those who may start operations.
  'runs.list': { scope: 'read', orgRole: 'member' },
  'run.cancel': { scope: 'write', projectRole: 'developer' },
  // Approvals: seen by the project; decided by its admins (organization admins included). Whether
  // the requester may approve their own request is the policy's call, checked by the service.
  'approvals.read': { scope: 'read', orgRole: 'member' },
  'approval.decide': { scope: 'write', projectRole: 'admin' },
  // Just-in-time access: any member may ask for more; a grant ends early by its holder's or an
  // admin's revocation (the service tells the two apart).
  'access_request.create': { scope: 'write', projectRole: 'viewer' },
  'access_request.revoke': { scope: 'write', projectRole: 'viewer' },
  // Webhooks: where the project's events go is the project admins' call (docs/contract.md §3: webhooks need the
  // admin scope); their URLs and delivery logs can carry tokens, so reading them is theirs too.
  'webhook.read': { scope: 'read', projectRole: 'admin' },
  'webhook.manage': { scope: 'admin', projectRole: 'admin' },
  // Audit export: where the organization's audit trail goes is an organization admin's setting.
  'audit_sinks.read': { scope: 'read', orgRole: 'admin' },
  'audit_sinks.manage': { scope: 'admin', orgRole: 'admin' },
  // Billing: every member may see what the plans are; the subscription is the admins' business.
  'billing.plans': { scope: 'read', orgRole: 'member' },
  'billing.read': { scope: 'read', orgRole: 'admin' },
} as const satisfies Record<string, ActionRule>;

export type Action = keyof typeof ACTIONS;

const SCOPE_RANK: Record<Scope, number> = { read: 1, write: 2, admin: 3 };
const ORG_RANK: Record<OrgRole, number> = { member: 1, admin: 2, owner: 3 };
const PROJECT_RANK: Record<ProjectRole, number> = { viewer: 1, developer: 2, admin: 3 };

export type Decision = { allowed: true } | { allowed: false; status: 403 | 404; reason: string };

const ALLOW: Decision = { allowed: true };

/** `admin` implies `write`, `write` implies `read`. */
export function hasScope(scopes: readonly Scope[] | null, needed: Scope): boolean {
  if (scopes === null) return true;
  return scopes.some((scope) => SCOPE_RANK[scope] >= SCOPE_RANK[needed]);
}

export function highestScope(scopes: readonly Scope[]): Scope {
  return scopes.reduce<Scope>((best, s) => (SCOPE_RANK[s] > SCOPE_RANK[best] ? s : best), 'read');
}

export function isOrgAdmin(principal: Pick<Principal, 'orgRole'>): boolean {
  return ORG_RANK[principal.orgRole] >= ORG_RANK.admin;
}

/** The scope and organization-role part of a decision: everything known before a resource is loaded. */
export function decide(principal: RoleHolder, action: Action): Decision {
  const rule: ActionRule = ACTIONS[action];
  if (!hasScope(principal.scopes, rule.scope)) {
    return { allowed: false, status: 403, reason: `This API key lacks the '${rule.scope}' scope` };
  }
  if ('orgRole' in rule && ORG_RANK[principal.orgRole] < ORG_RANK[rule.orgRole]) {
    return {
      allowed: false,
      status: 403,
      reason: `This action requires the organization ${rule.orgRole} role`,
    };
  }
  return ALLOW;
}

/**
 * The role a user holds on a project before the organization role is applied: their membership,
 * raised by an active just-in-time grant. A grant never lowers a role, and only counts for a member:
 * removing someone from a project ends what their grants gave them.
 */
export function grantedProjectRole(
  memberRole: ProjectRole | null,
  grantRole: ProjectRole | null,
): ProjectRole | null {
  if (memberRole === null || grantRole === null) return memberRole;
  return PROJECT_RANK[grantRole] > PROJECT_RANK[memberRole] ? grantRole : memberRole;
}

/** True when `role` is at least `needed`. */
export function projectRoleAtLeast(role: ProjectRole | null, needed: ProjectRole): boolean {
  return role !== null && PROJECT_RANK[role] >= PROJECT_RANK[needed];
}

/** Organization owners and admins act as project admins everywhere. */
export function effectiveProjectRole(
  principal: RoleHolder,
  memberRole: ProjectRole | null,
): ProjectRole | null {
  return isOrgAdmin(principal) ? 'admin' : memberRole;
}

/**
 * The project part: a project the principal has no role in is not visible (404, so that existence
 * does not leak); a role too low for the action is 403.
 */
export function decideOnProject(
  principal: RoleHolder,
  action: Action,
  memberRole: ProjectRole | null,
  resource = 'Project',
): Decision {
  const scoped = decide(principal, action);
  const role = effectiveProjectRole(principal, memberRole);
  if (role === null) return { allowed: false, status: 404, reason: `${resource} not found` };
  if (!scoped.allowed) return scoped;
  const rule: ActionRule = ACTIONS[action];
  if ('projectRole' in rule && PROJECT_RANK[role] < PROJECT_RANK[rule.projectRole]) {
    return {
      allowed: false,
      status: 403,
      reason: `This action requires the project ${rule.projectRole} role`,
    };
  }
  return ALLOW;
}

// The requests and the expected answers of the authorization matrix. A request is derived from the
// route alone: each path parameter names a fixture resource by the path segment before it, required
// query parameters and body fields come from the route's schema (fixture ids by field name, the
// smallest valid value otherwise), and a few bodies are written out where only a meaningful one gets
// past the service's own checks of its content. The expectation is what src/security/policy.ts says.
import { randomUUID } from 'node:crypto';
import {
  ACTIONS,
  type Action,
  grantedProjectRole,
  hasScope,
  isOrgAdmin,
  projectRoleAtLeast,
} from '../../src/security/policy.ts';
import type { OrgRole } from '../../src/store/tables.ts';
import type { Response } from './app.ts';
import type { Caller, Kind, World } from './authz-world.ts';
import { connectionBody } from './connections.ts';
import type { JsonSchema } from './openapi-arbitraries.ts';
import { type RouteEntry, routeKey } from './route-table.ts';

export interface MatrixRequest {
  method: string;
  url: string;
  body: unknown;
  /** A path parameter is a random id: a 404 for it says nothing about authorization. */
  randomIds: boolean;
  /** The request names a resource of the fixture organization, and one of its project. */
  touchesOrg: boolean;
  touchesProject: boolean;
  /** The connection it works on (written to, for a copy or a migration), if it names one. */
  connection: string | undefined;
  /**
   * The other connections a run it starts touches (a copy's or a migration's source): a grant limited
   * to one connection counts only when it covers these too.
   */
  alsoTouches: string[];
  /** The `detail` of a 404 that only says the caller's organization has not configured this. */
  absent: string | undefined;
}

/** Routes about the one configuration of the caller's organization, which it may not have (yet, or now). */
const ABSENT: Record<string, string> = {
  'GET /api/v1/admin/saml': 'SAML configuration not found',
  'DELETE /api/v1/admin/saml': 'SAML configuration not found',
};

/** The fixture resource a path parameter names, by the path segment before it. */
const KIND_OF_SEGMENT: Record<string, Kind> = {
  projects: 'project',
  members: 'member',
  connections: 'connection',
  snapshots: 'snapshot',
  drifts: 'drift',
  runs: 'run',
  approvals: 'approval',
  'access-requests': 'accessRequest',
  migrations: 'migration',
  patches: 'patch',
  scenarios: 'seed',
  configs: 'anonymize',
  webhooks: 'webhook',
  sinks: 'sink',
  users: 'user',
  'api-keys': 'apiKey',
};

/** Parameters named otherwise than by their segment: a purge needs a user already deleted. */
const KIND_OF_PARAMETER: Record<string, Record<string, Kind>> = {
  'POST /api/v1/admin/users/:/purge': { id: 'deletedUser' },
};

/**
 * Calls that use up what they name get a fresh one per caller, so that each caller's answer is about
 * its rights and not about what an earlier caller did: every DELETE, and these.
 */
const USES_UP = new Set(['POST /api/v1/admin/users/:/purge']);

/** Calls that start a run (or plan one) reading another connection than the one they write. */
const RUN_STARTS = new Set([
  'POST /api/v1/projects/:/bridge/run',
  'POST /api/v1/projects/:/migrations/compare',
  'POST /api/v1/migrations/:/apply',
  'POST /api/v1/migrations/:/rollback',
]);

/**
 * Calls of a route that ask for more than the route's own action, each a case of its own for every
 * caller: the body that asks, the resource it works on (a fresh one per caller, since the first
 * allowed caller uses it up) and the action the service checks on top of the route's.
 */
export interface Escalation {
  name: string;
  action: Action;
  kind: Kind;
  body: () => unknown;
}

export const ESCALATIONS: Record<string, Escalation[]> = {
  // Lifts the approval every write to the connection needs: organization admins only.
  'PATCH /api/v1/connections/:': [
    {
      name: 'turning protection off',
      action: 'connection.unprotect',
      kind: 'protectedConnection',
      body: () => ({ protected: false }),
    },
  ],
};

let counter = 0;
const unique = (tag: string) => `${tag}-${++counter}`;

/** Bodies that only a meaningful value gets past the service's checks of content. */
function writtenBody(key: string, world: World): unknown {
  const { projectId, targetUrl } = world;
  const bodies: Record<string, () => unknown> = {
    'POST /api/v1/connections': () => connectionBody(projectId, targetUrl),
    'PATCH /api/v1/connections/:': () => ({ name: unique('renamed') }),
    'POST /api/v1/patches': () => world.bodies.patch(world.ids.connection),
    'PATCH /api/v1/patches/:': () => ({ title: unique('renamed') }),
    'POST /api/v1/seed/scenarios': () => world.bodies.seed(),
    'PATCH /api/v1/seed/scenarios/:': () => ({ name: unique('renamed') }),
    'POST /api/v1/anonymize/configs': () => world.bodies.anonymize(),
    'PATCH /api/v1/anonymize/configs/:': () => ({ name: unique('renamed') }),
    'POST /api/v1/projects/:/webhooks': () => world.bodies.webhook(),
    'PATCH /api/v1/webhooks/:': () => ({ description: 'renamed' }),
    'POST /api/v1/admin/audit-export/sinks': () => world.bodies.sink(),
    'PATCH /api/v1/admin/audit-export/sinks/:': () => ({ active: true }),
    'PUT /api/v1/projects/:/policy': () => ({
      rules: [
        {
          operation: 'patch_execute',
          environments: ['production'],
          required_approvals: 1,
          allow_self_approval: false,
        },
      ],
    }),
    // Every caller but an admin asks for more than it has, so the request is not refused as moot.
    'POST /api/v1/projects/:/access-requests': () => ({
      role: 'admin',
      duration_minutes: 30,
      reason: 'the matrix',
    }),
    'PATCH /api/v1/approvals/:': () => ({ decision: 'approve' }),
    'PATCH /api/v1/migrations/:': () => ({ generated_sql: 'CREATE TABLE matrix_probe (id int)' }),
    // Names only: a role, a status or a password changed here would change the callers themselves.
    'PATCH /api/v1/users/:': () => ({ name: 'Renamed' }),
    'PATCH /api/v1/auth/me': () => ({ name: 'Renamed' }),
    'PATCH /api/v1/projects/:': () => ({ description: 'renamed' }),
    'PUT /api/v1/admin/saml': () => world.bodies.saml(),
    'POST /api/v1/auth/2fa/enable': () => ({ code: '000000' }),
    'POST /api/v1/auth/2fa/disable': () => ({ code: '000000' }),
  };
  return bodies[key]?.();
}

/** Values of fields by name: the fixture's ids, and what a field of that name must look like. */
function namedValue(name: string, world: World): unknown {
  switch (name) {
    case 'project_id':
      return world.projectId;
    case 'connection_id':
    case 'source_connection_id':
      return world.ids.connection;
    case 'target_connection_id':
      return world.otherConnectionId;
    case 'user_id':
      return world.ids.outsider;
    case 'email':
      return `${unique('matrix')}@example.com`;
    case 'password':
      return 'correct horse battery staple';
    case 'name':
    case 'title':
      return unique(name);
    case 'org_role':
      return 'member' satisfies OrgRole;
    case 'url':
      return 'http://127.0.0.1:9/matrix';
    default:
      return undefined;
  }
}

/** The smallest valid value of a schema (required properties only), fixture ids by field name. */
export function sample(schema: JsonSchema, name: string, world: World): unknown {
  const named = namedValue(name, world);
  if (named !== undefined) return named;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.allOf) {
    const merged = schema.allOf.map((part) => sample(part, name, world));
    return Object.assign({}, ...merged);
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return sample(union.find((s) => s.type !== 'null') ?? union[0] ?? {}, name, world);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const required = new Set(schema.required ?? []);
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([field]) => required.has(field))
          .map(([field, property]) => [field, sample(property, field, world)]),
      );
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}, name, world));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'string':
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      return 'x'.repeat(Math.max(schema.minLength ?? 1, 1));
    default:
      return undefined;
  }
}

export async function requestOf(
  route: RouteEntry,
  caller: Caller,
  world: World,
  escalation?: Escalation,
): Promise<MatrixRequest> {
  const key = routeKey(route.method, route.url);
  const segments = route.url.split('/');
  let randomIds = false;
  let touchesOrg = false;
  let touchesProject = false;
  const params = segments.filter((s) => s.startsWith(':'));
  const path = await Promise.all(
    segments.map(async (segment, i) => {
      if (!segment.startsWith(':')) return segment;
      const name = segment.slice(1);
      const kind = KIND_OF_PARAMETER[key]?.[name] ?? KIND_OF_SEGMENT[segments[i - 1] ?? ''];
      if (!kind) {
        randomIds = true;
        return randomUUID();
      }
      const last = segment === params.at(-1);
      if (last && escalation) return world.fresh(escalation.kind, caller);
      const fresh = last && (route.method === 'DELETE' || USES_UP.has(key));
      return fresh ? world.fresh(kind, caller) : world.shared(kind, caller);
    }),
  );
  const query = sample(route.schema.querystring ?? {}, '', world) as Record<string, unknown> | undefined;
  const search = new URLSearchParams(Object.entries(query ?? {}).map(([k, v]) => [k, String(v)])).toString();
  const body =
    escalation?.body() ??
    writtenBody(key, world) ??
    (route.schema.body ? sample(route.schema.body, '', world) : undefined);
  const fields = (body ?? {}) as Record<string, unknown>;
  const named = [...path, ...Object.values(query ?? {}), ...Object.values(fields)];
  // What is written (a copy's or a migration's target) decides, else what the body or the path names.
  const connectionNamed = [fields.target_connection_id, fields.connection_id, ...path.slice().reverse()]
    .map((value) => (typeof value === 'string' ? world.tags.get(value)?.connection : undefined))
    .find((connection) => connection !== undefined);
  const alsoTouches = RUN_STARTS.has(key)
    ? [fields.source_connection_id, ...path]
        .map((value) => (typeof value === 'string' ? world.tags.get(value) : undefined))
        .map((tag, i) => (i === 0 ? tag?.connection : tag?.reads))
        .filter((connection): connection is string => connection !== undefined)
    : [];
  for (const value of named) {
    const tag = typeof value === 'string' ? world.tags.get(value) : undefined;
    if (!tag) continue;
    touchesOrg = true;
    touchesProject ||= tag.inProject;
  }
  return {
    method: route.method,
    url: path.join('/') + (search ? `?${search}` : ''),
    body,
    randomIds,
    touchesOrg,
    touchesProject,
    connection: connectionNamed,
    alsoTouches,
    absent: ABSENT[key],
  };
}

export type Expectation = { allowed: true } | { allowed: false; status: 401 | 403 | 404; why: string };

const ORG_RANK: Record<OrgRole, number> = { member: 1, admin: 2, owner: 3 };

/**
 * What the policy says, in the order the service decides: credentials (401), a session-only route
 * called with a key (403), the key's scope and the organization role (403, at the HTTP layer, before
 * any resource is read), then a resource of another organization or of a project the caller has no
 * role in (404, so existence does not leak), then the project role (403).
 */
export function expectationOf(
  route: RouteEntry,
  caller: Caller,
  request: MatrixRequest,
  world: World,
  escalation?: Escalation,
): Expectation {
  const base = routeExpectation(route, caller, request, world);
  if (!base.allowed || !escalation) return base;
  // What the service checks once the route's own rule and the resource have passed.
  const rule = ACTIONS[escalation.action];
  const deny = (why: string): Expectation => ({ allowed: false, status: 403, why });
  if (!hasScope(caller.scopes, rule.scope)) return deny(`${escalation.action} needs the ${rule.scope} scope`);
  if ('orgRole' in rule && ORG_RANK[caller.orgRole!] < ORG_RANK[rule.orgRole])
    return deny(`${escalation.action} needs the organization ${rule.orgRole} role`);
  return base;
}

function routeExpectation(
  route: RouteEntry,
  caller: Caller,
  request: MatrixRequest,
  world: World,
): Expectation {
  const action = route.config.action;
  if (!action) throw new Error(`${route.method} ${route.url} declares no action`);
  const rule = ACTIONS[action];
  const deny = (status: 401 | 403 | 404, why: string): Expectation => ({ allowed: false, status, why });
  if (caller.via === 'none' || caller.orgRole === null) return deny(401, 'no valid credentials');
  if (route.config.auth === 'session' && caller.via === 'key') return deny(403, 'a session-only route');
  if (!hasScope(caller.scopes, rule.scope)) return deny(403, `${action} needs the ${rule.scope} scope`);
  if ('orgRole' in rule && ORG_RANK[caller.orgRole] < ORG_RANK[rule.orgRole])
    return deny(403, `${action} needs the organization ${rule.orgRole} role`);
  if (caller.foreign && request.touchesOrg) return deny(404, 'a resource of another organization');
  if (request.touchesProject) {
    const grant = caller.connectionGrant;
    const covered =
      grant && [request.connection, ...request.alsoTouches].every((c) => c === grant.connectionId);
    const granted = covered ? grant.role : null;
    const role = isOrgAdmin({ orgRole: caller.orgRole })
      ? 'admin'
      : grantedProjectRole(caller.projectRole, granted);
    if (role === null) return deny(404, 'a project the caller has no role in');
    if ('projectRole' in rule && !projectRoleAtLeast(role, rule.projectRole))
      return deny(403, `${action} needs the project ${rule.projectRole} role`);
    // A grant ends early by its holder's revocation or a project admin's (docs/contract.md §10), not another member's.
    if (
      action === 'access_request.revoke' &&
      role !== 'admin' &&
      caller.self?.user.id !== world.accessRequestHolder
    )
      return deny(403, 'only the holder of the grant or a project admin revokes it');
  }
  return { allowed: true };
}

/**
 * What is wrong with an answer, or null. A denial must be exactly the expected status. An allowed call
 * must not be refused (401, 403, `Project not found`), nor fail (5xx, 502 included: every target
 * database of the fixtures is up, so a 502 is the service failing to reach one, as when concurrent
 * requests wait on each other for a connection of a pool). It may still be refused for what it asks,
 * which is not this test's business: 400, 409 (a state conflict: already decided, already a member,
 * nothing to roll back), 422 (content the service checks itself), and 404 when it names a random id
 * or a configuration the caller's organization does not have.
 */
export function problemOf(
  expectation: Expectation,
  request: MatrixRequest,
  response: Response,
): string | null {
  const { status, body } = response;
  const said = `${status} ${JSON.stringify(body)?.slice(0, 160)}`;
  if (!expectation.allowed) {
    if (status !== expectation.status)
      return `expected ${expectation.status} (${expectation.why}), got ${said}`;
    if (status === 404 && !/not found$/i.test(String(body?.detail)))
      return `a 404 that does not say not found: ${said}`;
    return null;
  }
  if (status === 401 || status === 403) return `allowed by the policy, refused: ${said}`;
  const absent = request.absent !== undefined && body?.detail === request.absent;
  if (status === 404 && !absent && (!request.randomIds || body?.detail === 'Project not found'))
    return `allowed by the policy, not found: ${said}`;
  if (status >= 500) return `allowed by the policy, failed: ${said}`;
  return null;
}

/**
 * What an answer with data shows that its caller may not see, or null: an id of another
 * organization's resource, or of a project the caller has no role in (a list that forgot to filter,
 * a nested object that carries too much). Only the shared fixture project counts as seen by its
 * members; a resource made for another caller is not looked for in their answers.
 */
export function leakOf(caller: Caller, response: Response, world: World): string | null {
  if (caller.orgRole === null || response.status >= 400) return null;
  const seesProject =
    isOrgAdmin({ orgRole: caller.orgRole }) ||
    caller.projectRole !== null ||
    caller.connectionGrant !== undefined;
  const text = JSON.stringify(response.body ?? null);
  for (const [id, tag] of world.tags) {
    const hidden = caller.foreign || (tag.inProject && !seesProject);
    if (hidden && text.includes(id))
      return `the answer names ${id}, which the caller may not see: ${text.slice(0, 200)}`;
  }
  return null;
}

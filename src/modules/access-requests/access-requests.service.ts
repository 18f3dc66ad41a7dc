// Just-in-time access (docs/contract.md §10): a member of a project asks for a stronger role on it (or on one of
// its connections) for a while, with a reason. The request creates an approval (kind access_request,
// one approver, never the requester) that project admins decide through the approvals API; granted,
// the role counts in every authorization until `expires_at` (src/modules/projects/projects.access.ts).
// The holder or a project admin may revoke a grant early. Members see the project's requests.
import { createHash, randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, forbidden, invalid, notFound } from '../../core/errors.ts';
import { projectRoleAtLeast } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { AccessRequest, Subject } from '../../store/tables.ts';
import { subjectConnection, summarize } from '../approvals/approval-subject.ts';
import { approvalEvent } from '../approvals/approval-transitions.ts';
import { approvalViews } from '../approvals/approval-views.ts';
import { approvalsByIds, insertPendingApproval } from '../approvals/approvals.repo.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireProject, requireProjectAccess } from '../projects/projects.access.ts';
import { accessRequestEvent } from './access-request-transitions.ts';
import {
  type AccessRequestFilter,
  findAccessRequest,
  findPendingDuplicate,
  findProjectConnection,
  insertAccessRequest,
  projectAccessRequestsQuery,
  revokeAccessRequest,
} from './access-requests.repo.ts';
import type { CreateAccessRequestBody } from './access-requests.schemas.ts';
import { toAccessRequestResponse } from './access-requests.schemas.ts';

/** An access request nobody decided on expires after this long. */
export const ACCESS_REQUEST_TTL_MS = 24 * 60 * 60 * 1000;

export type AccessRequestsService = ReturnType<typeof createAccessRequestsService>;

export function createAccessRequestsService(deps: { db: Db; audit: AuditService; now: () => Date }) {
  const { db, audit, now } = deps;

  /** Requests as answered to `actor`, each with its approval: a few queries for any number. */
  async function views(executor: Db, actor: Actor, requests: AccessRequest[]) {
    const approvals = await approvalsByIds(
      executor,
      requests.map((r) => r.approval_id),
    );
    const answered = await approvalViews(executor, approvals, { actor, now: now() });
    const byId = new Map(answered.map((a) => [a.id, a]));
    return requests.map((r) => toAccessRequestResponse(r, byId.get(r.approval_id)!));
  }

  const viewOf = async (executor: Db, actor: Actor, request: AccessRequest) =>
    (await views(executor, actor, [request]))[0]!;

  async function load(
    executor: Db,
    actor: Actor,
    id: string,
    action: 'project.read' | 'access_request.revoke',
  ) {
    const request = await findAccessRequest(executor, actor.principal.orgId, id);
    if (!request) throw notFound('Access request');
    const access = await requireProjectAccess(executor, actor, request.project_id, action).catch(
      (error: unknown) => {
        throw error instanceof AppError && error.code === 'not_found' ? notFound('Access request') : error;
      },
    );
    return { request, role: access.role };
  }

  return {
    async create(actor: Actor, projectId: string, input: CreateAccessRequestBody) {
      const { principal } = actor;
      const connectionId = input.connection_id ?? null;
      return db.transaction().execute(async (trx) => {
        const { project, role } = await requireProjectAccess(trx, actor, projectId, 'access_request.create', {
          ...(connectionId && { connectionId }),
        });
        const connection = connectionId
          ? await findProjectConnection(trx, principal.orgId, projectId, connectionId)
          : null;
        if (connectionId && !connection) {
          throw invalid(['body', 'connection_id'], 'No such connection in this project');
        }
        if (projectRoleAtLeast(role, input.role)) {
          throw conflict(`You already have the ${role} role here`);
        }
        const terms = {
          project_id: project.id,
          user_id: principal.userId,
          role: input.role,
          connection_id: connectionId,
        };
        if (await findPendingDuplicate(trx, terms))
          throw conflict('The same access request is already pending');

        const at = now();
        const id = randomUUID();
        const { approval } = await insertPendingApproval(trx, {
          id: randomUUID(),
          org_id: principal.orgId,
          project_id: project.id,
          kind: 'access_request',
          subject_id: id,
          requested_by: principal.userId,
          required_approvals: 1,
          allow_self_approval: false,
          environment: null,
          // Binds the approval to the exact terms asked for, as an operation's is bound to its SQL.
          content_hash: hashTerms({
            ...terms,
            duration_minutes: input.duration_minutes,
            reason: input.reason,
          }),
          subject: JSON.stringify({
            kind: 'access_request',
            id,
            title: `${input.role} access for ${input.duration_minutes} minutes${connection ? ` on ${connection.name}` : ''}`,
            connection: connection ? subjectConnection(connection) : null,
            summary: summarize(input.reason),
          } satisfies Subject),
          created_at: at,
          expires_at: new Date(at.getTime() + ACCESS_REQUEST_TTL_MS),
        });
        const request = await insertAccessRequest(trx, {
          id,
          org_id: principal.orgId,
          ...terms,
          duration_minutes: input.duration_minutes,
          reason: input.reason,
          status: 'pending',
          approval_id: approval.id,
          created_at: at,
        });
        await audit.record(
          trx,
          actor,
          accessRequestEvent('access_request.create', request, {
            duration_minutes: request.duration_minutes,
            reason: request.reason,
          }),
        );
        await audit.record(
          trx,
          actor,
          approvalEvent('approval.request', approval, { required_approvals: 1 }),
        );
        return viewOf(trx, actor, request);
      });
    },

    async list(actor: Actor, projectId: string, filter: AccessRequestFilter, page: PageRequest) {
      await requireProject(db, actor, projectId, 'project.read');
      const { rows, total } = await paginate(projectAccessRequestsQuery(db, projectId, filter), page);
      return { items: await views(db, actor, rows), total };
    },

    async get(actor: Actor, id: string) {
      return viewOf(db, actor, (await load(db, actor, id, 'project.read')).request);
    },

    /** Ends an active grant at once: its holder may give it up, a project admin may take it away. */
    async revoke(actor: Actor, id: string) {
      return db.transaction().execute(async (trx) => {
        const { request, role } = await load(trx, actor, id, 'access_request.revoke');
        if (request.user_id !== actor.principal.userId && role !== 'admin') {
          throw forbidden('Only the holder of the grant or a project admin can revoke it');
        }
        const revoked = await revokeAccessRequest(trx, id, actor.principal.userId, now());
        if (!revoked)
          throw conflict(`The access request is ${request.status}; only an active grant can be revoked`);
        await audit.record(trx, actor, accessRequestEvent('access_request.revoke', revoked));
        return viewOf(trx, actor, revoked);
      });
    },
  };
}

function hashTerms(terms: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(terms)).digest('hex');
}

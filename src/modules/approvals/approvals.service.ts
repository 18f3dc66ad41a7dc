// Approvals (docs/contract.md §10): listing, reading and deciding. Project admins decide (organization owners and
// admins act as project admins everywhere); `required_approvals` distinct approvers grant, one
// rejection rejects. The requester may approve their own request only where the policy rule allowed
// it when the approval was created; anyone who may decide may reject, the requester included (a
// withdrawal). Runs released by a grant are handed to the queue after the commit.

import type { Actor } from '../../core/actors.ts';
import { AppError, conflict, forbidden, notFound } from '../../core/errors.ts';
import { isOrgAdmin } from '../../security/policy.ts';
import type { Db } from '../../store/db.ts';
import { type PageRequest, paginate } from '../../store/paging.ts';
import type { Approval, Run } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requireProject } from '../projects/projects.access.ts';
import type { RunKinds } from '../runs/run-kinds.ts';
import type { RunsService } from '../runs/runs.service.ts';
import { approvalEvent, resolveApproval } from './approval-transitions.ts';
import { approvalViews } from './approval-views.ts';
import {
  type ApprovalFilter,
  countApprovingDecisions,
  findApproval,
  findDecision,
  insertDecision,
  lockApproval,
  visibleApprovalsQuery,
} from './approvals.repo.ts';
import type { ApprovalResponse, DecideBody } from './approvals.schemas.ts';

export type ApprovalsService = ReturnType<typeof createApprovalsService>;

export function createApprovalsService(deps: {
  db: Db;
  audit: AuditService;
  runs: Pick<RunsService, 'enqueue'>;
  /** The registered run kinds, for the requester check of the runs a granted approval releases. */
  runKinds: RunKinds;
  now: () => Date;
}) {
  const { db, audit, runs, now } = deps;

  /** The approval, if the caller may see it (404 naming the approval otherwise) and do `action`. */
  async function load(executor: Db, actor: Actor, id: string, action: 'project.read' | 'approval.decide') {
    const approval = await findApproval(executor, actor.principal.orgId, id);
    if (!approval) throw notFound('Approval');
    await requireProject(executor, actor, approval.project_id, action).catch((error: unknown) => {
      throw error instanceof AppError && error.code === 'not_found' ? notFound('Approval') : error;
    });
    return approval;
  }

  async function view(executor: Db, actor: Actor, approval: Approval): Promise<ApprovalResponse> {
    return (await approvalViews(executor, [approval], { actor, now: now() }))[0]!;
  }

  return {
    async list(actor: Actor, filter: ApprovalFilter, page: PageRequest) {
      const { principal } = actor;
      const { rows, total } = await paginate(
        visibleApprovalsQuery(db, principal.orgId, principal.userId, isOrgAdmin(principal), filter),
        page,
      );
      return { items: await approvalViews(db, rows, { actor, now: now() }), total };
    },

    async get(actor: Actor, id: string): Promise<ApprovalResponse> {
      return view(db, actor, await load(db, actor, id, 'project.read'));
    },

    async decide(actor: Actor, id: string, input: DecideBody): Promise<ApprovalResponse> {
      const userId = actor.principal.userId;
      const { approval, released } = await db.transaction().execute(async (trx) => {
        await load(trx, actor, id, 'approval.decide');
        // Locked: two approvers deciding at once are counted one after the other.
        const approval = (await lockApproval(trx, id))!;
        if (approval.status !== 'pending') throw conflict(`The approval is ${approval.status}`);
        if (approval.expires_at <= now()) throw conflict('The approval has expired');
        if (
          input.decision === 'approve' &&
          approval.requested_by === userId &&
          !approval.allow_self_approval
        ) {
          throw forbidden('The requester cannot approve their own request');
        }
        if (await findDecision(trx, id, userId)) throw conflict('You have already decided on this approval');
        await insertDecision(trx, {
          approval_id: id,
          user_id: userId,
          decision: input.decision,
          comment: input.comment ?? null,
          decided_at: now(),
        });
        await audit.record(
          trx,
          actor,
          approvalEvent('approval.decision', approval, {
            decision: input.decision,
            comment: input.comment ?? null,
          }),
        );
        let released: Run[] = [];
        if (input.decision === 'reject') {
          await resolveApproval(trx, deps, actor, approval, 'rejected');
        } else {
          const approvals = await countApprovingDecisions(trx, id);
          if (approvals >= approval.required_approvals)
            released = await resolveApproval(trx, deps, actor, approval, 'approved', { approvals });
        }
        return { approval: (await lockApproval(trx, id))!, released };
      });
      // After the commit: a send inside the transaction would wait on it (PGlite), and a worker
      // must find the run queued. A lost send is repaired by the executor's sweep.
      for (const run of released) await runs.enqueue(run);
      return view(db, actor, approval);
    },
  };
}

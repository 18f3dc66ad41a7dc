// The approval gate: the one check every operation makes before it runs (patch execute and rollback,
// migration apply and rollback, seed, anonymize and bridge runs). The project policy (docs/contract.md §5) says
// whether the operation on that environment needs approval; if it does, the operation runs only
// with an approved approval bound to its exact content (a hash of the SQL text and the target
// schema hash, computed by the caller). Editing the content voids the approvals of the old one.
//
// Every operation names the connection it writes to (`writesTo`) and those it reads rows out of
// (`readsRowsOf`): a protected one (docs/contract.md §6) needs an approval by someone other than the requester
// whatever the policy says, so an operation gets that protection by declaring what it touches,
// never by a check of its own (approval-rule.ts). Its run kind's registration says it again
// (`touches`), so that a run still waiting when a connection becomes protected is not released on
// its requester's word (approval-protection.ts).
//
// Operations do not call the gate themselves: the one gated-run path (src/modules/runs/run-start.ts)
// does, in the transaction that creates the run. The code that edits a patch or migration calls
// `gate.voidApprovals(trx, actor, subjectId)`.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../core/actors.ts';
import { conflict } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import type { Approval, PolicyOperation, Subject } from '../../store/tables.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { requiredApproval, satisfies, type WriteTarget } from './approval-rule.ts';
import { approvalEvent, resolveApproval } from './approval-transitions.ts';
import {
  consumeApproval,
  findProjectPolicy,
  insertPendingApproval,
  liveApprovalsOf,
} from './approvals.repo.ts';

/** A pending approval of an operation expires after this long without enough decisions. */
export const APPROVAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface GateInput {
  projectId: string;
  /** The policy operation (docs/contract.md §5): patch_execute, migration_apply, … */
  operation: PolicyOperation;
  /** The connection the operation writes to: its environment picks the policy rule, its protection tightens it. */
  writesTo: WriteTarget;
  /** Connections rows are read out of into another place: a protected one tightens the rule as a write does. */
  readsRowsOf?: WriteTarget[];
  /** What a person deciding reads (kept on the approval). */
  subject: Subject;
  /** The patch, migration, scenario, config or bridge the operation runs. */
  subjectId: string;
  /** Hash of exactly what will run (SQL text and target schema hash). */
  contentHash: string;
}

export type GateDecision =
  /** Run now. `approvalId`: the approval this execution used up, or null when none was needed. */
  | { decision: 'proceed'; approvalId: string | null }
  /** Create the run `awaiting_approval` with this approval: it starts when the approval is granted. */
  | { decision: 'await'; approvalId: string };

export type ApprovalGate = ReturnType<typeof createApprovalGate>;

export function createApprovalGate(deps: { audit: AuditService; now: () => Date }) {
  const { audit, now } = deps;

  return {
    /**
     * Decides whether the operation may run now, in the caller's transaction `trx` (which then
     * creates the run). Throws 409 when the approval for this very content was rejected: only a
     * change of the content (a new hash) may ask again.
     */
    async decide(trx: Db, actor: Actor, input: GateInput): Promise<GateDecision> {
      // Locks the subject's live approvals: concurrent gates on one subject take turns.
      const live = await liveApprovalsOf(trx, input.subjectId, input.operation);
      for (const stale of live.filter((a) => a.content_hash !== input.contentHash && a.status !== 'rejected'))
        await resolveApproval(trx, deps, actor, stale, 'cancelled', { reason: 'content changed' });

      const guarded: WriteTarget = {
        environment: input.writesTo.environment,
        protected: input.writesTo.protected || (input.readsRowsOf ?? []).some((c) => c.protected),
      };
      const rule = requiredApproval(await findProjectPolicy(trx, input.projectId), input.operation, guarded);
      if (!rule) return { decision: 'proceed', approvalId: null };

      let current: Approval | undefined = live.find((a) => a.content_hash === input.contentHash);
      // Asked or granted before the connection was protected, on weaker terms: it does not count.
      // (Unprotected writes keep what was asked, as they always have when a policy changes.)
      if (guarded.protected && current && current.status !== 'rejected' && !satisfies(current, rule)) {
        await resolveApproval(trx, deps, actor, current, 'cancelled', { reason: 'approval terms tightened' });
        current = undefined;
      }
      if (current?.status === 'rejected') {
        throw conflict('The approval for this content was rejected; change it to ask for approval again');
      }
      if (current?.status === 'approved') {
        await consumeApproval(trx, current.id, now());
        await audit.record(trx, actor, approvalEvent('approval.consume', current));
        return { decision: 'proceed', approvalId: current.id };
      }
      if (current?.status === 'pending') {
        if (current.expires_at > now()) return { decision: 'await', approvalId: current.id };
        // Past its time but not yet swept by the expiry job: expire it here and ask afresh.
        await resolveApproval(trx, deps, actor, current, 'expired');
      }

      const at = now();
      const { approval, created } = await insertPendingApproval(trx, {
        id: randomUUID(),
        org_id: actor.principal.orgId,
        project_id: input.projectId,
        kind: input.operation,
        subject_id: input.subjectId,
        requested_by: actor.principal.userId,
        required_approvals: rule.required_approvals,
        allow_self_approval: rule.allow_self_approval,
        environment: input.writesTo.environment,
        content_hash: input.contentHash,
        subject: JSON.stringify(input.subject),
        created_at: at,
        expires_at: new Date(at.getTime() + APPROVAL_TTL_MS),
      });
      // A concurrent gate on the same subject won the race, for other content (an edit in between).
      if (approval.content_hash !== input.contentHash)
        throw conflict('The content changed while approval was being requested; try again');
      if (!created) return { decision: 'await', approvalId: approval.id };
      await audit.record(
        trx,
        actor,
        approvalEvent('approval.request', approval, {
          environment: input.writesTo.environment,
          protected: guarded.protected,
          required_approvals: approval.required_approvals,
          content_hash: approval.content_hash,
        }),
      );
      return { decision: 'await', approvalId: approval.id };
    },

    /**
     * Voids (status `cancelled`) every pending or approved-but-unused approval of the subject, of
     * every operation kind, and cancels the runs waiting on them. For the code that edits a patch
     * or a migration: what was approved is no longer what would run. Returns how many were voided.
     */
    async voidApprovals(trx: Db, actor: Actor, subjectId: string): Promise<number> {
      const live = await liveApprovalsOf(trx, subjectId);
      let voided = 0;
      for (const approval of live.filter((a) => a.status !== 'rejected')) {
        await resolveApproval(trx, deps, actor, approval, 'cancelled', { reason: 'content changed' });
        voided++;
      }
      return voided;
    },
  };
}

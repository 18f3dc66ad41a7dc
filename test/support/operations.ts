// The approval gate as the gated-run path uses it (gate, then run, then send), for the tests of
// approvals and access on subjects that need no real connection: the gate, the run record and the
// runs service's send on a test app, and a wait for a run's status.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Actor } from '../../src/core/actors.ts';
import type { GateDecision } from '../../src/modules/approvals/approval-gate.ts';
import { insertRun } from '../../src/modules/runs/runs.repo.ts';
import type { Environment, PolicyOperation, Run } from '../../src/store/tables.ts';
import type { Client, Response, TestApp } from './app.ts';

export async function waitForRun(
  client: Client,
  runId: string,
  statuses: string[],
): Promise<Response['body']> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await client.get(`/api/v1/runs/${runId}`);
    if (statuses.includes(response.body.status)) return response.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${response.body.status}`);
    await sleep(100);
  }
}

/** The gate, the runs service and the way an operation module uses them, on a test app. */
export function operations(t: TestApp) {
  const { gate, runs } = t.composition;
  return {
    gate,
    /** What an operation's endpoint does: the gate, then the run (waiting or queued), then the send. */
    async start(
      actor: Actor,
      input: {
        projectId: string;
        subjectId: string;
        contentHash: string;
        operation?: PolicyOperation;
        environment?: Environment;
        /** Whether the connection written to is protected; not by default, so the policy alone decides. */
        protected?: boolean;
      },
    ): Promise<{ verdict: GateDecision; run: Run }> {
      const operation = input.operation ?? 'migration_apply';
      const writesTo = {
        environment: input.environment ?? 'production',
        protected: input.protected ?? false,
      };
      const subject = {
        kind: 'migration' as const,
        id: input.subjectId,
        title: `test ${operation}`,
        connection: { id: randomUUID(), name: 'test target', ...writesTo },
        summary: 'SELECT 1',
      };
      const result = await t.store.db.transaction().execute(async (trx) => {
        const verdict = await gate.decide(trx, actor, {
          projectId: input.projectId,
          operation,
          writesTo,
          subjectId: input.subjectId,
          contentHash: input.contentHash,
          subject,
        });
        const run = await insertRun(trx, {
          id: randomUUID(),
          org_id: actor.principal.orgId,
          project_id: input.projectId,
          kind: operation,
          subject_id: input.subjectId,
          subject,
          status: verdict.decision === 'await' ? 'awaiting_approval' : 'queued',
          approval_id: verdict.decision === 'await' ? verdict.approvalId : null,
          progress_total: null,
          progress_unit: 'statements',
          params: {},
          created_by: actor.principal.userId,
          created_at: new Date(),
        });
        await t.composition.audit.record(trx, actor, {
          action: 'run.create',
          projectId: input.projectId,
          target: { type: 'run', id: run.id, label: run.kind },
          details: { kind: run.kind, subject_id: run.subject_id, status: run.status },
        });
        return { verdict, run };
      });
      await runs.enqueue(result.run);
      return result;
    },
  };
}

/**
 * A queued run of `kind` on no subject and no connection, written as the gated-run path writes one,
 * for the tests of the executor, its events and its sweep (what a handler does, not who may start it).
 */
export async function recordQueuedRun(
  t: TestApp,
  actor: Actor,
  input: { projectId: string; kind: Run['kind'] },
): Promise<Run> {
  return insertRun(t.store.db, {
    id: randomUUID(),
    org_id: actor.principal.orgId,
    project_id: input.projectId,
    kind: input.kind,
    subject_id: null,
    status: 'queued',
    approval_id: null,
    progress_total: null,
    progress_unit: 'steps',
    params: {},
    created_by: actor.principal.userId,
    created_at: new Date(),
  });
}

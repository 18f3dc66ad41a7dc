// The approval gate as an operation module uses it (gate, then run, then send), for the tests of
// approvals and access: the gate and the runs service on a test app, and a wait for a run's status.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Actor } from '../../src/core/actors.ts';
import type { GateDecision } from '../../src/modules/approvals/approval-gate.ts';
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
      const result = await t.store.db.transaction().execute(async (trx) => {
        const verdict = await gate.gate(trx, actor, {
          projectId: input.projectId,
          operation,
          writesTo: { environment: input.environment ?? 'production', protected: input.protected ?? false },
          subjectId: input.subjectId,
          contentHash: input.contentHash,
        });
        const run = await runs.create(trx, actor, {
          projectId: input.projectId,
          kind: operation,
          subjectId: input.subjectId,
          unit: 'statements',
          awaitingApprovalId: verdict.decision === 'await' ? verdict.approvalId : null,
        });
        return { verdict, run };
      });
      await runs.enqueue(result.run);
      return result;
    },
  };
}

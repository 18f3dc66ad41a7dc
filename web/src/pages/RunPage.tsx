import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Run } from '../api/types.ts';
import { ApprovalCard } from '../components/ApprovalCard.tsx';
import { RunProgress, useRun } from '../components/RunProgress.tsx';
import { SubjectDetails } from '../components/SubjectDetails.tsx';

export function RunPage() {
  const { runId = '' } = useParams();
  const run = useRun(runId);
  return (
    <>
      <h1>Run</h1>
      <RunProgress runId={runId} showLink={false} />
      {run.data?.subject && (
        <section className="card" aria-label="Subject">
          <h2>{run.data.subject.title}</h2>
          <SubjectDetails subject={run.data.subject} projectId={run.data.project_id} />
        </section>
      )}
      {run.data?.approval_id && <RunApproval run={run.data} approvalId={run.data.approval_id} />}
      {run.data?.result && (
        <section className="card" aria-label="Result">
          <h2>Result</h2>
          {/* Focusable so that keyboard users can scroll a wide result. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
          <pre tabIndex={0}>{JSON.stringify(run.data.result, null, 2)}</pre>
        </section>
      )}
    </>
  );
}

/** The approval the run waits for (or waited for), decided here as in the inbox. */
function RunApproval({ run, approvalId }: { run: Run; approvalId: string }) {
  const approval = useQuery({
    queryKey: ['approval', approvalId, run.status],
    queryFn: () => call(api.GET('/api/v1/approvals/{id}', { params: { path: { id: approvalId } } })),
  });
  if (!approval.data) return null;
  return <ApprovalCard approval={approval.data} withSubject={false} />;
}

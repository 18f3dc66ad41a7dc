import { useParams } from 'react-router';
import { RunProgress, useRun } from '../components/RunProgress.tsx';

export function RunPage() {
  const { runId = '' } = useParams();
  const run = useRun(runId);
  return (
    <>
      <h1>Run</h1>
      <RunProgress runId={runId} showLink={false} />
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

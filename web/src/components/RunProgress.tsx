// A run as it happens: status and progress polled with back-off until it ends, cancel while it can.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Run } from '../api/types.ts';
import { isActiveRun, pollInterval } from '../lib/poll.ts';
import { Status } from './Badge.tsx';
import { ErrorText } from './ErrorText.tsx';
import { ProgressBar } from './ProgressBar.tsx';

export function useRun(runId: string, onEnd?: (run: Run) => void) {
  const polls = useRef(0);
  const ended = useRef(false);
  return useQuery({
    queryKey: ['run', runId],
    queryFn: async () => {
      polls.current += 1;
      const run = await call(api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }));
      if (!isActiveRun(run.status) && !ended.current) {
        ended.current = true;
        onEnd?.(run);
      }
      return run;
    },
    refetchInterval: (query) => pollInterval(query.state.data?.status, polls.current),
  });
}

export function RunProgress({
  runId,
  onEnd,
  showLink = true,
}: {
  runId: string;
  onEnd?: (run: Run) => void;
  showLink?: boolean;
}) {
  const queryClient = useQueryClient();
  const run = useRun(runId, (ended) => {
    queryClient.invalidateQueries({ queryKey: ['runs'] });
    queryClient.invalidateQueries({ queryKey: ['projects'] });
    onEnd?.(ended);
  });
  const cancel = useMutation({
    mutationFn: () => call(api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: runId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['run', runId] }),
  });
  if (!run.data) return <ErrorText error={run.error} />;
  const data = run.data;
  return (
    <section className="run card" aria-label="Run" data-testid="run-progress" data-status={data.status}>
      <div className="row">
        <strong>{data.kind.replace(/_/g, ' ')}</strong>
        <Status value={data.status} />
        {showLink && <Link to={`/projects/${data.project_id}/runs/${data.id}`}>Run details</Link>}
        <span className="spacer" />
        {isActiveRun(data.status) && (
          <button
            type="button"
            className="danger secondary"
            onClick={() => cancel.mutate()}
            disabled={cancel.isPending}
          >
            Cancel run
          </button>
        )}
      </div>
      <ProgressBar progress={data.progress} />
      {data.status === 'awaiting_approval' && (
        <p className="muted">Waiting for an approval before it starts.</p>
      )}
      {data.error && (
        <p className="error" role="alert">
          {data.error}
        </p>
      )}
      <ErrorText error={cancel.error} />
    </section>
  );
}

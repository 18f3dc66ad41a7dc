import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { Status } from '../components/Badge.tsx';
import { ProgressBar } from '../components/ProgressBar.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { QueryState } from '../components/States.tsx';
import { isActiveRun } from '../lib/poll.ts';

export function RunsPage() {
  const { pid = '' } = useParams();
  const runs = useQuery({
    queryKey: ['runs', 'list', pid],
    queryFn: () => call(api.GET('/api/v1/runs', { params: { query: { project_id: pid } } })),
    refetchInterval: (query) => (query.state.data?.items.some((r) => isActiveRun(r.status)) ? 2_000 : 15_000),
  });
  return (
    <>
      <h1>Runs</h1>
      <QueryState
        isLoading={runs.isLoading}
        error={runs.error}
        isEmpty={runs.data?.items.length === 0}
        empty="No runs yet."
      >
        <ScrollTable label="Runs">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {runs.data?.items.map((run) => (
                <tr key={run.id}>
                  <td>
                    <Link to={`/projects/${pid}/runs/${run.id}`}>{run.kind.replace(/_/g, ' ')}</Link>
                  </td>
                  <td>
                    <Status value={run.status} />
                  </td>
                  <td>
                    <ProgressBar progress={run.progress} />
                  </td>
                  <td>{run.started_at ? new Date(run.started_at).toLocaleString() : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      </QueryState>
    </>
  );
}

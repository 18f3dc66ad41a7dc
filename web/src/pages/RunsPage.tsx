import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { Status } from '../components/Badge.tsx';
import { ListTable } from '../components/ListTable.tsx';
import { ProgressBar } from '../components/ProgressBar.tsx';
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
      <ListTable
        query={runs}
        label="Runs"
        empty="No runs yet."
        columns={['Kind', 'About', 'Status', 'Progress', 'Started']}
        hideNarrow={[3, 4]}
        row={(run) => (
          <tr key={run.id}>
            <td>
              <Link to={`/projects/${pid}/runs/${run.id}`}>{run.kind.replace(/_/g, ' ')}</Link>
            </td>
            <td className="break">
              {run.subject ? (
                <>
                  {run.subject.title}
                  {run.subject.connection && <span className="muted"> on {run.subject.connection.name}</span>}
                </>
              ) : (
                '—'
              )}
            </td>
            <td>
              <Status value={run.status} />
            </td>
            <td className="hide-narrow">
              <ProgressBar progress={run.progress} />
            </td>
            <td className="hide-narrow">
              {run.started_at ? new Date(run.started_at).toLocaleString() : '—'}
            </td>
          </tr>
        )}
      />
    </>
  );
}

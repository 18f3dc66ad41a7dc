import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../api/client.ts';

/** How many runs are running or queued (in the project, or the organization), always in view. */
export function RunsIndicator({ projectId }: { projectId: string | undefined }) {
  const count = (status: 'running' | 'queued') =>
    call(
      api.GET('/api/v1/runs', {
        params: { query: { status, page_size: 1, ...(projectId ? { project_id: projectId } : {}) } },
      }),
    ).then((page) => page.total);
  const active = useQuery({
    queryKey: ['runs', 'active', projectId ?? 'all'],
    queryFn: async () => ({ running: await count('running'), queued: await count('queued') }),
    refetchInterval: (query) =>
      (query.state.data?.running ?? 0) + (query.state.data?.queued ?? 0) > 0 ? 2_000 : 10_000,
  });
  const running = active.data?.running ?? 0;
  const queued = active.data?.queued ?? 0;
  const busy = running + queued > 0;
  const to = projectId ? `/projects/${projectId}/runs` : '/';
  return (
    <Link
      to={to}
      className={`runs-indicator${busy ? ' busy' : ''}`}
      aria-live="polite"
      data-testid="runs-indicator"
    >
      <span className="dot" aria-hidden="true" />
      {busy ? `${running} running, ${queued} queued` : 'No runs active'}
    </Link>
  );
}

// The shell around every signed-in page: organization and project switcher, the runs indicator, the
// user's menu, and the project's sidebar with badges for open drift reports and pending approvals.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { useMe } from '../auth/session.ts';
import { CountBadge } from '../components/Badge.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { QueryState } from '../components/States.tsx';
import { useProjects } from './projects.ts';
import { RunsIndicator } from './RunsIndicator.tsx';

export function Layout() {
  const me = useMe();
  const location = useLocation();
  if (me.isLoading) return <p className="muted page">Loading…</p>;
  if (me.error)
    return (
      <main className="page">
        <QueryState
          isLoading={false}
          error={me.error}
          onRetry={() => void me.refetch()}
          retrying={me.isFetching}
        />
      </main>
    );
  if (!me.data)
    return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <SignedInLayout name={me.data.name} />;
}

function SignedInLayout({ name }: { name: string }) {
  const { pid } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const projects = useProjects();
  const org = useQuery({ queryKey: ['org'], queryFn: () => call(api.GET('/api/v1/orgs/current')) });
  const project = projects.data?.items.find((p) => p.id === pid);

  const logout = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/logout')),
    onSuccess: () => {
      queryClient.clear();
      navigate('/login');
    },
  });

  return (
    <div className="shell">
      <header className="topbar">
        <NavLink to="/" className="brand">
          dbops
        </NavLink>
        <span className="org" title="Organization">
          {org.data?.name}
        </span>
        <label className="switcher">
          <span className="visually-hidden">Project</span>
          <select
            value={pid ?? ''}
            onChange={(e) => navigate(e.target.value ? `/projects/${e.target.value}/connections` : '/')}
          >
            <option value="">All projects</option>
            {projects.data?.items.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <RunsIndicator projectId={pid} />
        <nav className="user-menu" aria-label="Account">
          <NavLink to="/profile">{name}</NavLink>
          <NavLink to="/api-keys">API keys</NavLink>
          <NavLink to="/organization">Organization</NavLink>
          <NavLink to="/audit">Audit log</NavLink>
          <button type="button" className="link" onClick={() => logout.mutate()}>
            Sign out
          </button>
        </nav>
      </header>
      <div className="body">
        {project && (
          <nav className="sidebar" aria-label={`Project ${project.name}`}>
            <h2>{project.name}</h2>
            <NavLink to={`/projects/${project.id}/connections`}>Connections</NavLink>
            <NavLink to={`/projects/${project.id}/drift`}>
              Drift <CountBadge count={project.open_drift_reports} label="open drift reports" />
            </NavLink>
            <NavLink to={`/projects/${project.id}/migrations`}>Migrations</NavLink>
            <NavLink to={`/projects/${project.id}/patches`}>Patches</NavLink>
            <NavLink to={`/projects/${project.id}/bridge`}>Bridge</NavLink>
            <NavLink to={`/projects/${project.id}/seeds`}>Seeds</NavLink>
            <NavLink to={`/projects/${project.id}/anonymize`}>Anonymize</NavLink>
            <NavLink to={`/projects/${project.id}/approvals`}>
              Approvals <CountBadge count={project.pending_approvals} label="pending approvals" />
            </NavLink>
            <NavLink to={`/projects/${project.id}/access-requests`}>Access requests</NavLink>
            <NavLink to={`/projects/${project.id}/policy`}>Policy</NavLink>
            <NavLink to={`/projects/${project.id}/members`}>Members</NavLink>
            <NavLink to={`/projects/${project.id}/runs`}>Runs</NavLink>
            <NavLink to={`/projects/${project.id}/webhooks`}>Webhooks</NavLink>
          </nav>
        )}
        <main className="page">
          <ErrorText error={logout.error} />
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <Outlet />
          </Suspense>
        </main>
      </div>
    </div>
  );
}

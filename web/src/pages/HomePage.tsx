import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.ts';
import type { Project } from '../api/types.ts';
import { DeleteAction } from '../components/DeleteAction.tsx';
import { ErrorText } from '../components/ErrorText.tsx';
import { QueryState } from '../components/States.tsx';
import { countOf } from '../lib/plural.ts';
import { useConnections } from '../shell/connections.ts';
import { useProjects } from '../shell/projects.ts';

export function HomePage() {
  const projects = useProjects();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => call(api.POST('/api/v1/projects', { body: { name } })),
    onSuccess: () => {
      setName('');
      queryClient.invalidateQueries({ queryKey: ['projects'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <h1>Projects</h1>
      <QueryState
        isLoading={projects.isLoading}
        error={projects.error}
        onRetry={() => void projects.refetch()}
        retrying={projects.isFetching}
        isEmpty={projects.data?.items.length === 0}
        empty="No projects yet: create the first one below."
      >
        <ul className="cards">
          {projects.data?.items.map((p) => (
            <li key={p.id} className="card">
              <Link to={`/projects/${p.id}/connections`} className="name">
                {p.name}
              </Link>
              {p.description && <p className="muted">{p.description}</p>}
              <ProjectCounts project={p} />
              <div className="card-actions">
                <DeleteAction
                  noun="project"
                  name={p.name}
                  consequences={<ProjectConsequences projectId={p.id} />}
                  remove={() =>
                    call(api.DELETE('/api/v1/projects/{pid}', { params: { path: { pid: p.id } } }))
                  }
                  onDeleted={() => queryClient.invalidateQueries({ queryKey: ['projects'] })}
                />
              </div>
            </li>
          ))}
        </ul>
      </QueryState>
      <form onSubmit={submit} className="inline-form" aria-label="New project">
        <label>
          New project name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" disabled={create.isPending}>
          Create project
        </button>
        <ErrorText error={create.error} />
      </form>
    </>
  );
}

/** What waits in a project, said in words beside the counts (a bare number says nothing). */
function ProjectCounts({ project }: { project: Project }) {
  const { open_drift_reports: drift, pending_approvals: approvals } = project;
  if (drift === 0 && approvals === 0) return null;
  return (
    <p className="counts">
      {drift > 0 && <span className="badge-text">{countOf(drift, 'open drift report')}</span>}
      {approvals > 0 && <span className="badge-text">{countOf(approvals, 'pending approval')}</span>}
    </p>
  );
}

/** Everything a project holds goes with it; its connections are counted, the databases stay. */
function ProjectConsequences({ projectId }: { projectId: string }) {
  const connections = useConnections(projectId);
  const count = connections.data?.total ?? connections.data?.items.length;
  return (
    <p>
      {count === undefined ? 'Its connections' : `Its ${countOf(count, 'connection')}`} (with their snapshots,
      drift reports, migrations, patches, seed scenarios and anonymization configs), members, policy,
      webhooks, approvals, access requests and runs go with it. The databases themselves are not touched, and
      the audit log keeps its entries.
    </p>
  );
}
